// gpucheck itself killed with SIGKILL (an OOM kill, a CI runner's timeout, a reboot of the jump host's
// session) at six points of a run, through the compiled binary, on the local platform and on ssh
// (the loopback sshd's of test/infra/ssh.sh): whatever it leaves must parse, must not read green to
// any CI or command unless the run had ended and passed, and no rank may outlive it.
//
// Points that last seconds (the preflight's probe, a test's ranks) are watched for and gpucheck is
// stopped (SIGSTOP) the moment they are seen, so what the test then checks cannot move under it. Points
// that last milliseconds (a test's start, half-way through writing results.json, report.html or the
// certificate) are reached with the binary's test-only pause (GPUCHECK_TEST_PAUSE, lib/core/test-pause.ts).
import { afterAll, describe, expect, test } from "bun:test";
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { processesWithEnv } from "../../platforms/leftovers.ts";
import { assertJunitValid } from "../../report/xsd.ts";
import { gpucheck, gpucheckArgv, tempDir } from "../../e2e/cli.ts";
import { remoteProcesses, SSH_INFRA, sshInfra } from "../platforms/ssh-infra.ts";

/**
 * How long a rank may outlive a gpucheck killed by SIGKILL. local: its stdin pipe closes at once
 * (workload/gpucheck_workload/hangup.py). ssh: the remote wrapper sees its ssh channel close and
 * kills the rank's group (docs/platform-ssh.md).
 */
// a gpucheck killed with SIGKILL on ssh cannot remove its ControlPath directory (plugins/_shared/ssh/control.ts):
// the runs this file killed leave theirs in TMPDIR, and the file takes them away (scripts/test.sh checks TMPDIR is left clean)
const startedMs = Date.now();
afterAll(() => {
  for (const name of readdirSync(tmpdir()))
    if (name.startsWith("gpucheck-ssh-") && statSync(join(tmpdir(), name)).mtimeMs >= startedMs - 1000) rmSync(join(tmpdir(), name), { recursive: true, force: true });
});

const KILL_BOUND_MS = 5_000;

/** What a platform runs the suite with, and what of its ranks is alive. */
interface Platform {
  name: "local" | "ssh";
  /** junit testcases of the inventory test once it ended: one per node */
  nodes: number;
  /** the suite's platform block and defaults */
  yaml: () => string;
  args: () => string[];
  /** the workload processes of this run alive now: `what` narrows to one subcommand (preflight, collective) */
  ranks: (out: string, what?: string) => Promise<string[]>;
}

const LOCAL: Platform = {
  name: "local",
  nodes: 1,
  yaml: () => "platform: { type: local }\ndefaults: { python: /usr/bin/python3, gpusPerNode: 0, ranksPerNode: 2 }",
  args: () => [],
  // a local rank's environment names the run directory (its PYTHONPATH)
  ranks: async (out, what) => (await processesWithEnv(out)).filter((p) => p.includes("gpucheck_workload") && (!what || p.includes(what))),
};

const SSH: Platform = {
  name: "ssh",
  nodes: 2,
  yaml: () =>
    `platform:\n  type: ssh\n  ssh:\n    configFile: ${sshInfra().config}\n    killGraceMs: 2000\ndefaults: { python: /usr/bin/python3, gpusPerNode: 0, nodes: 2, ranksPerNode: 1 }`,
  args: () => ["--hosts", sshInfra().hosts.slice(0, 2).join(","), "--python", "/usr/bin/python3"],
  // every fake host's remote side runs as the test user on this machine (`pgrep -u` of the hosts); one run at a time holds them
  ranks: async (_out, what) => {
    await Bun.sleep(300);
    return remoteProcesses(sshInfra().user).filter((p) => p.includes("gpucheck_workload") && (!what || p.includes(what)));
  },
};

/** A quick test, then one that runs until killed (a 256 MiB gloo all-reduce 1,000 times over). */
function suiteFile(p: Platform): string {
  const path = join(tempDir(`kill9-suite-${p.name}`), "kill.yaml");
  writeFileSync(
    path,
    [
      `name: e2e-kill-${p.name}`,
      p.yaml(),
      "tests:",
      "  - name: inventory",
      "    kind: inventory",
      "  - name: too-big",
      "    kind: collective",
      "    timeout: 300s",
      "    collective: { op: all_reduce, minBytes: 256MiB, maxBytes: 256MiB, iters: 1000, warmup: 1, backend: gloo }",
      "    expect:",
      "      busbw: { min: 0.001 GB/s }",
      "",
    ].join("\n"),
  );
  return path;
}

interface Run {
  child: ChildProcess;
  output: () => string;
  /** resolves when gpucheck itself is gone (not its pipes: an ssh ControlMaster it left may hold them) */
  gone: Promise<void>;
}

function start(args: string[], env: Record<string, string>): Run {
  const [cmd, ...pre] = gpucheckArgv();
  const child = spawn(cmd!, [...pre, ...args], { env: { ...process.env, NO_COLOR: "1", ...env }, stdio: ["ignore", "pipe", "pipe"] });
  let text = "";
  child.stdout!.on("data", (d) => (text += d));
  child.stderr!.on("data", (d) => (text += d));
  const gone = new Promise<void>((r) => child.once("exit", () => r()));
  return { child, output: () => text, gone };
}

/** The process's state letter from /proc: T when stopped. */
const state = (pid: number) => /\) (\S)/.exec(readFileSync(`/proc/${pid}/stat`, "utf8"))?.[1];

const readJson = (path: string) => JSON.parse(readFileSync(path, "utf8"));
const outcomes = (out: string) => readJson(join(out, "results.json")).tests.map((t: { name: string; outcome: string }) => `${t.name} ${t.outcome}`);

/** A temp file gpucheck was writing when killed (writeFileAtomic's `.<name>.<pid>.tmp`): never the file itself. */
function halfWritten(out: string, name: string): string {
  const tmp = readdirSync(out).find((f) => f.startsWith(`.${name}.`) && f.endsWith(".tmp"));
  expect(tmp).toBeDefined();
  return readFileSync(join(out, tmp!), "utf8");
}

interface Point {
  name: string;
  /** GPUCHECK_TEST_PAUSE: the binary stops itself there */
  pause?: string;
  /** else: stop it the moment this holds (what it names lasts seconds) */
  watch?: (out: string, p: Platform) => Promise<boolean>;
  /** the workload subcommand whose processes are alive at the kill */
  alive?: string;
  /** args after `suite <file>` */
  args?: string[];
  /** the run had ended before the kill: its files are final and say how it went */
  ended?: boolean;
  /** what is on disk after the kill, beyond what every point checks */
  check: (out: string, ctx: { keys: string; p: Platform }) => void;
}

const resultsWithoutPreflight = (out: string) => existsSync(join(out, "results.json")) && !readJson(join(out, "results.json")).preflight;

const POINTS: Point[] = [
  {
    name: "in the preflight",
    // results.json is written ahead before the preflight starts; its probe imports torch on every node
    watch: async (out, p) => resultsWithoutPreflight(out) && (await p.ranks(out, "preflight")).length > 0,
    alive: "preflight",
    check: (out) => {
      expect(readJson(join(out, "results.json")).preflight).toBeUndefined();
      expect(outcomes(out)).toEqual(["inventory unfinished", "too-big unfinished"]);
    },
  },
  {
    name: "at a test's start",
    // the second test's start: the first has ended and is on disk, the second is not launched
    pause: "test-start@2",
    check: (out) => {
      expect(readJson(join(out, "results.json")).preflight.passed).toBe(true);
      expect(outcomes(out)).toEqual(["inventory passed", "too-big unfinished"]);
    },
  },
  {
    name: "mid-test",
    // the all-reduce's ranks are up, and still up a second later: a rank seen once may be one that is
    // failing at its rendezvous (the test then ends by itself, and the kill would find nothing to stop)
    watch: async (out, p) => {
      if (!existsSync(join(out, "results.json")) || outcomes(out)[0] !== "inventory passed" || (await p.ranks(out, "collective")).length === 0) return false;
      await Bun.sleep(1000);
      return (await p.ranks(out, "collective")).length > 0;
    },
    alive: "collective",
    check: (out) => expect(outcomes(out)).toEqual(["inventory passed", "too-big unfinished"]),
  },
  {
    name: "while writing results",
    // the third write of results.json, as the first test ended (the first is written ahead, the second adds the preflight)
    pause: "write:results.json@3",
    check: (out) => {
      // the previous results.json, whole: the preflight in, the test that had just ended still unfinished
      expect(readJson(join(out, "results.json")).preflight.passed).toBe(true);
      expect(outcomes(out)).toEqual(["inventory unfinished", "too-big unfinished"]);
      // the new one was half-way into its temp file, which is not JSON
      expect(() => JSON.parse(halfWritten(out, "results.json"))).toThrow();
    },
  },
  {
    name: "while rendering the report",
    args: ["--only", "inventory"],
    pause: "write:report.html",
    ended: true,
    check: (out) => {
      expect(existsSync(join(out, "report.html"))).toBe(false);
      expect(halfWritten(out, "report.html")).toStartWith("<!DOCTYPE html>");
    },
  },
  {
    name: "while signing",
    args: ["--only", "inventory", "--sign-key"],
    pause: "write:certificate.intoto.json",
    ended: true,
    check: (out, { keys }) => {
      // no certificate, not half of one: verify has nothing to accept
      expect(existsSync(join(out, "certificate.intoto.json"))).toBe(false);
      expect(() => JSON.parse(halfWritten(out, "certificate.intoto.json"))).toThrow();
      const cert = join(out, "certificate.intoto.json");
      const none = gpucheck(["verify", cert, "--key", join(keys, "gpucheck.pub"), "--results", out]);
      expect(none.status).not.toBe(0);
      // the run is signed afresh; a certify killed after the certificate, while writing its page, leaves
      // a whole certificate that verifies
      const [cmd, ...pre] = gpucheckArgv();
      // it stops itself at the pause; the timeout's SIGKILL is the kill
      const certify = spawnSync(cmd!, [...pre, "certify", out, "--key", join(keys, "gpucheck.key")], {
        env: { ...process.env, GPUCHECK_TEST_PAUSE: "write:certificate.html" },
        encoding: "utf8",
        timeout: 5_000,
        killSignal: "SIGKILL",
      });
      expect(certify.stderr).toBe("gpucheck-test-pause: write:certificate.html@1\n");
      expect(certify.signal).toBe("SIGKILL");
      expect(existsSync(join(out, "certificate.html"))).toBe(false);
      const ok = gpucheck(["verify", cert, "--key", join(keys, "gpucheck.pub"), "--results", out]);
      expect(ok.stderr).toBe("");
      expect(ok.status).toBe(0);
      // and it stays signed
      expect(gpucheck(["certify", out, "--key", join(keys, "gpucheck.key")]).status).toBe(2);
    },
  },
];

for (const p of [LOCAL, SSH]) {
  // local runs share nothing (each its own directory, its ranks told apart by it): all at once. ssh
  // runs share the hosts' user, whose processes are the ranks checked: one at a time
  const t = p === LOCAL ? test.concurrent : SSH_INFRA ? test : test.skip;
  describe(`gpucheck killed by SIGKILL on ${p.name}: never green, no rank left`, () => {
    for (const point of POINTS) {
      t(
        point.name,
        async () => {
          const suite = suiteFile(p);
          const out = join(tempDir(`kill9-${p.name}`), "run");
          const keys = join(tempDir("kill9-keys"), "keys");
          expect(gpucheck(["keygen", "--out", keys]).status).toBe(0);
          const args = (point.args ?? []).map((a) => (a === "--sign-key" ? `--sign-key=${join(keys, "gpucheck.key")}` : a));
          const run = start(["suite", suite, ...p.args(), "--out", out, "--progress", "plain", ...args], point.pause ? { GPUCHECK_TEST_PAUSE: point.pause } : {});
          const pid = run.child.pid!;
          const deadline = Date.now() + 90_000;
          const reached = async () =>
            point.pause ? run.output().includes(`gpucheck-test-pause: ${point.pause.includes("@") ? point.pause : `${point.pause}@1`}\n`) : await point.watch!(out, p);
          while (!(await reached()) && run.child.exitCode === null && Date.now() < deadline) await Bun.sleep(50);
          if (!point.pause) run.child.kill("SIGSTOP");
          await Bun.sleep(50);
          expect(run.child.exitCode, run.output()).toBeNull();
          expect(state(pid)).toBe("T");
          // stopped where it was meant to be, with what it started still running
          if (point.alive) expect((await p.ranks(out, point.alive)).length, `no ${point.alive} rank alive at the stop; gpucheck said:\n${run.output()}`).toBeGreaterThan(0);
          run.child.kill("SIGKILL");
          await run.gone;
          expect(run.child.signalCode).toBe("SIGKILL");

          point.check(out, { keys, p });
          // junit.xml parses and validates against Jenkins' schema
          assertJunitValid(join(out, "junit.xml"));
          const junit = readFileSync(join(out, "junit.xml"), "utf8");
          const res = readJson(join(out, "results.json"));
          const unfinished = res.tests.filter((x: { outcome: string }) => x.outcome === "unfinished").map((x: { name: string }) => x.name);
          if (point.ended) {
            // killed after the last write of results.json and junit.xml: the run had ended, and they say how
            expect(res.endedAt).not.toBeNull();
            expect(res.complete).toBe(true);
            expect(res.outcome).toBe("passed");
            expect(junit).toMatch(new RegExp(`<testsuite name="e2e-kill-${p.name}" tests="${p.nodes}" failures="0" errors="0" skipped="0"`));
            const report = gpucheck(["report", out]);
            expect(report.status).toBe(0);
            expect(existsSync(join(out, "report.html"))).toBe(true);
            // report rewrote nothing a certificate covers
            const cert = join(out, "certificate.intoto.json");
            if (existsSync(cert)) expect(gpucheck(["verify", cert, "--key", join(keys, "gpucheck.pub"), "--results", out]).status).toBe(0);
          } else {
            // every test not ended is an error: no CI reads it as green
            expect(unfinished.length).toBeGreaterThan(0);
            // a test not ended is one testcase; an ended inventory one per node
            const cases = unfinished.length + (unfinished.includes("inventory") ? 0 : p.nodes);
            expect(junit).toMatch(new RegExp(`<testsuite name="e2e-kill-${p.name}" tests="${cases}" failures="0" errors="${unfinished.length}" skipped="0"`));
            expect(junit.match(/<error message="not finished: the run stopped before this test ended" type="unfinished"\/>/g)).toHaveLength(unfinished.length);
            expect(res.endedAt).toBeNull();
            expect(res.outcome).toBe("unfinished");
            // every command that reads the run says so and exits 3
            const report = gpucheck(["report", out]);
            expect(report.status).toBe(3);
            const s = unfinished.length === 1 ? "" : "s";
            expect(report.stdout).toContain(`INCOMPLETE: the run never ended (killed, or still going): ${unfinished.length} test${s} never ended: ${unfinished.join(", ")}.`);
            const judge = gpucheck(["judge", out, "--suite", suite, "--out", join(tempDir("kill9-judged"), "j")]);
            expect(judge.status).toBe(3);
            expect(judge.stdout.split("\n")[0]).toContain(": INCOMPLETE: ");
            // nor is it signed: certify refuses it and writes nothing
            const certify = gpucheck(["certify", out, "--key", join(keys, "gpucheck.key")]);
            expect(certify.status).toBe(3);
            expect(certify.stderr).toStartWith(`gpucheck: cannot certify "${out}": INCOMPLETE run: `);
            expect(existsSync(join(out, "certificate.intoto.json"))).toBe(false);
          }

          // no rank outlives it beyond the bound
          const bound = Date.now() + KILL_BOUND_MS;
          while ((await p.ranks(out)).length && Date.now() < bound) await Bun.sleep(100);
          expect(await p.ranks(out)).toEqual([]);
        },
        240_000,
      );
    }
  });
}
