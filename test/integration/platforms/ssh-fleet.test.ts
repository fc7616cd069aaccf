// A fleet of 100 ssh hosts (test/infra/ssh.sh's benchmark addresses, 16 per sshd) through the binary,
// every node answered by the workload's stand-in (test/standin/python3: canned, no torch): an
// each-node inventory of the fleet; a host where nothing listens and a host whose sshd is SIGSTOPped
// (each costs one connect timeout and blocks no other host); Ctrl-C in the middle of the fleet.
import { beforeAll, describe, expect, test } from "bun:test";
import { execFileSync } from "node:child_process";
import { chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { ResultsFile, UnitResult } from "../../../lib/core/types.ts";
import { gpucheck, gpucheckAsync, tempDir } from "../../e2e/cli.ts";
import { assertJunitValid } from "../../report/xsd.ts";
import { removeAfterRun } from "../../tmp.ts";
import { freezeHost, INFRA_SCRIPT, remoteLeftovers, SSH_INFRA, sshInfra } from "./ssh-infra.ts";

const t = SSH_INFRA ? test : test.skip;
const FLEET = 100;
// on loopback, but no sshd of test/infra/ssh.sh listens there: the connection is refused
const NOBODY = "127.0.9.1";
const FROZEN = 4; // host4, 127.0.0.5

let dir = "";
let standin = "";

beforeAll(() => {
  if (!SSH_INFRA) return;
  if (sshInfra().benchHosts.length < FLEET) execFileSync("bash", [INFRA_SCRIPT, "start", String(4 + FLEET)], { stdio: "ignore" });
  // the stand-in where the test user can read it: the checkout may be under a private directory
  dir = tempDir("ssh-fleet");
  chmodSync(dir, 0o755);
  mkdirSync(join(dir, "standin"), { mode: 0o755 });
  cpSync(join(import.meta.dir, "..", "..", "standin"), join(dir, "standin"), { recursive: true });
  execFileSync("chmod", ["-R", "a+rX", join(dir, "standin")]);
  standin = join(dir, "standin", "python3");
});

function suite(name: string, hosts: string[], extra: string): string {
  const hostfile = join(dir, `${name}.hosts`);
  writeFileSync(hostfile, `${hosts.join("\n")}\n`);
  const path = join(dir, `${name}.yaml`);
  writeFileSync(
    path,
    `name: ${name}\ndefaults: { gpusPerNode: 0, ranksPerNode: 1 }\ntests:\n  - name: inventory\n    kind: inventory\nplatform:\n  type: ssh\n  ssh:\n    configFile: ${sshInfra().config}\n    hostfile: ${hostfile}\n    launcher: gpucheck\n${extra}`,
  );
  return path;
}

const read = (out: string) => JSON.parse(readFileSync(join(out, "results.json"), "utf8")) as ResultsFile;
const units = (r: ResultsFile): UnitResult[] => r.tests[0]!.units;

describe("a fleet of 100 ssh hosts", () => {
  t(
    "each node's inventory from the stand-in, passed and marked simulated on every one of the 100; staged by the preflight, warm for the test",
    () => {
      const fleet = sshInfra().benchHosts.slice(0, FLEET);
      const out = join(dir, "out");
      // a stage of its own: the preflight's first ssh to each host finds none (it waits while the copy
      // and the probe use its connection), the inventory's finds it and runs the probe in that session
      const stage = join(dir, "stage");
      mkdirSync(stage, { mode: 0o1777 });
      chmodSync(stage, 0o1777);
      const run = gpucheck(["suite", suite("fleet", fleet, `    maxParallel: 32\n    stageDir: ${stage}\n`), "--python", standin, "--out", out, "--progress", "plain"], {
        timeoutMs: 280_000,
      });
      const r = read(out);
      const notes = run.stderr.split("\n").filter((l) => / note: (staged the workload|workload [0-9a-f]+ already staged)/.test(l));
      expect(
        notes.map((l) =>
          l
            .replace(/^.* note: /, "")
            .replace(/[0-9a-f]{16}/, "H")
            .replace(/on \d+ of/, "on N of"),
        ),
      ).toEqual([`staged the workload (H) on N of ${FLEET} hosts`, `workload H already staged on all ${FLEET} hosts`]);
      // the summary first: when a host failed, it names the host and why
      expect(run.stdout).toStartWith(`gpucheck fleet (ssh): PASSED (SIMULATED WORKLOAD): ${FLEET} passed\n`);
      expect(run.status).toBe(0);
      expect(
        units(r)
          .map((u) => u.unit)
          .sort(),
      ).toEqual([...fleet].sort());
      expect(units(r).every((u) => u.verdict.outcome === "passed" && u.simulated?.startsWith("test/standin/python3: "))).toBe(true);
      expect(r.simulated).toStartWith(`simulated workload — not evidence about hardware: ${FLEET} of ${FLEET} units answered by test/standin/python3`);
      // each node's canned inventory carries that node's name: 100 answers, not one answer 100 times
      expect(units(r).every((u) => (u.measurement?.raw as { hostname?: string } | undefined)?.hostname === u.unit)).toBe(true);
      assertJunitValid(join(out, "junit.xml"));
    },
    300_000,
  );

  t(
    "a refused host and a frozen one each cost one connect timeout, are named, and block no other host",
    () => {
      const some = sshInfra().benchHosts.slice(0, 8);
      const frozen = sshInfra().hosts[FROZEN - 1]!;
      const out = join(dir, "unreachable");
      freezeHost(FROZEN, true);
      const t0 = Date.now();
      let run: ReturnType<typeof gpucheck>;
      try {
        run = gpucheck(["suite", suite("unreachable", [NOBODY, frozen, ...some], "    maxParallel: 4\n    connectTimeout: 3\n"), "--python", standin, "--out", out], {
          timeoutMs: 120_000,
        });
      } finally {
        freezeHost(FROZEN, false);
      }
      const took = (Date.now() - t0) / 1000;
      const r = read(out);
      // the preflight stops the run where a node cannot be checked: every other node was, all the same
      expect(run.status).toBe(3);
      const pre = r.preflight!;
      expect(
        pre.nodes
          .filter((n) => n.passed)
          .map((n) => n.node)
          .sort(),
      ).toEqual([...some].sort());
      const nobody = pre.nodes.find((n) => n.node === NOBODY)!;
      expect(nobody.status).toBe("infra");
      expect(nobody.message).toBe(`host ${NOBODY}: unreachable: ssh: connect to host ${NOBODY} port ${sshInfra().port}: Connection refused`);
      const stopped = pre.nodes.find((n) => n.node === frozen)!;
      expect(stopped.status).toBe("infra");
      expect(stopped.message).toMatch(new RegExp(`^host ${frozen.replace(/\./g, "\\.")}: unreachable: .*timed out`));
      // 4 at a time over 10 hosts: the frozen host's 3 s held one slot, not the run
      expect(took).toBeLessThan(60);
      assertJunitValid(join(out, "junit.xml"));
    },
    150_000,
  );

  t(
    "Ctrl-C mid-fan-out: exit 130, no ssh or ControlMaster left, no control directory, every host not reached named",
    async () => {
      const fleet = sshInfra().benchHosts.slice(0, FLEET);
      const out = join(dir, "sigint");
      // short, so that the ControlPath directory is made here and not in /tmp (control.ts: sun_path)
      const tmp = mkdtempSync("/tmp/gpucheck-fleet-");
      removeAfterRun(tmp);
      const run = gpucheckAsync(["suite", suite("sigint", fleet, "    maxParallel: 8\n"), "--python", standin, "--out", out, "--progress", "plain"], { env: { TMPDIR: tmp } });
      const deadline = Date.now() + 120_000;
      // mid-fan-out: the preflight (one process per host, through the same window as an each-node
      // test) has reached some hosts, most have not had their turn
      const reached = () => (existsSync(join(out, "preflight")) ? readdirSync(join(out, "preflight")).length : 0);
      while (reached() < 16 && run.child.exitCode === null && Date.now() < deadline) await Bun.sleep(100);
      if (run.child.exitCode !== null) throw new Error(`gpucheck ended before Ctrl-C:\n${run.output().slice(-3000)}`);
      run.child.kill("SIGINT");
      expect(await run.exited).toBe(130);
      const r = read(out);
      expect(r.complete).toBe(false);
      expect(r.stopped).toBe("interrupted by Ctrl-C or SIGTERM");
      expect(units(r).map((u) => u.verdict.outcome)).toEqual(["skipped"]);
      const nodes = r.preflight!.nodes;
      expect(nodes.map((n) => n.node).sort()).toEqual([...fleet].sort());
      const notReached = nodes.filter((n) => n.message?.startsWith("cancelled before"));
      expect(notReached.length).toBeGreaterThan(FLEET / 2);
      for (const n of notReached) expect(n.message).toBe(`cancelled before host ${n.node} was reached (at most 8 hosts at a time)`);
      assertJunitValid(join(out, "junit.xml"));
      expect(readdirSync(tmp).filter((f) => f.startsWith("gpucheck-ssh-"))).toEqual([]);
      const ssh = execFileSync("ps", ["-eo", "args="], { encoding: "utf8" })
        .split("\n")
        .filter((l) => l.includes(tmp));
      expect(ssh).toEqual([]);
      expect(await remoteLeftovers(sshInfra().user)).toEqual([]);
    },
    150_000,
  );
});
