// Every command meets a disk it cannot use, through the compiled binary copied alone into a
// directory: a read-only file system (EROFS, a tmpfs mounted ro), a full one (ENOSPC, a 64 KiB tmpfs
// filled up) and a path its user may not enter (EACCES, run as `nobody` against a 0700 root
// directory). Each row asserts the exact line (the path, what gpucheck was doing, why, what to do),
// the exit code, and that nothing was left behind. verify and parse nccl write nothing, so only
// EACCES concerns them. ENOTDIR, EISDIR and EEXIST need no mount: test/cli/fs-errors.test.ts.
// Root only (mount, runuser): it skips otherwise (describe.skipIf).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chmodSync, chownSync, copyFileSync, cpSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { spawnSync } from "node:child_process";
import { gpucheckArgv, tempDir } from "../../e2e/cli.ts";

const root = process.getuid?.() === 0;
const repo = join(import.meta.dir, "..", "..", "..");
const dir = tempDir("errno");
const mounts: string[] = [];
const RUNUSER = existsSync("/usr/sbin/runuser") ? "/usr/sbin/runuser" : "/sbin/runuser";
let argv: string[] = [];

function sh(...cmd: string[]): void {
  const r = spawnSync(cmd[0]!, cmd.slice(1), { encoding: "utf8" });
  if (r.status !== 0) throw new Error(`${cmd.join(" ")} exited ${r.status}: ${r.stderr}`);
}

function tmpfs(name: string, options: string): string {
  const mnt = join(dir, name);
  mkdirSync(mnt);
  sh("mount", "-t", "tmpfs", "-o", options, "tmpfs", mnt);
  mounts.push(mnt);
  return mnt;
}

/** Writes zeros until the file system says ENOSPC: nothing more fits, not even a lock file. */
function fill(mnt: string): void {
  spawnSync("dd", ["if=/dev/zero", `of=${join(mnt, "fill")}`, "bs=4k"]);
  const df = spawnSync("df", ["--output=avail", mnt], { encoding: "utf8" }).stdout.trim().split("\n")[1]?.trim();
  expect(df).toBe("0");
}

beforeAll(() => {
  if (!root) return;
  // nobody must reach the directory and the binary in it: the scratch directory and every parent
  // get o+x (search, not read) where they lack it (a test run's TMPDIR is made 0700)
  for (let d = dir; d !== "/"; d = dirname(d)) if ((statSync(d).mode & 0o001) === 0) chmodSync(d, statSync(d).mode | 0o001);
  chmodSync(dir, 0o755);
  // the binary alone, as a user copies it; from sources when it was not built
  const [cmd, ...pre] = gpucheckArgv();
  argv = [cmd!, ...pre];
  if (pre.length === 0) {
    copyFileSync(cmd!, join(dir, "gpucheck"));
    chmodSync(join(dir, "gpucheck"), 0o755);
    argv = [join(dir, "gpucheck")];
  }
  mkdirSync(join(dir, "home"));
  chmodSync(join(dir, "home"), 0o777);
  cpSync(join(repo, "test", "fixtures", "sign", "h100-2node"), join(dir, "run"), { recursive: true });
  cpSync(join(repo, "test", "fixtures", "e2e", "inventory-only.yaml"), join(dir, "suite.yaml"));
  expect(gpucheck(["keygen", "--out", "keys"]).status).toBe(0);
  // the public key for anyone (keygen makes the directory 0700); the private key stays root's
  chmodSync(join(dir, "keys"), 0o755);

  // read-only: an empty file system, and one holding a run
  tmpfs("ro", "ro,size=1m");
  const rorun = tmpfs("rorun", "size=1m");
  cpSync(join(dir, "run"), join(rorun, "run"), { recursive: true });
  sh("mount", "-o", "remount,ro", rorun);
  // full: an empty file system, and one holding a run, each filled up
  fill(tmpfs("full", "size=64k"));
  const fullrun = tmpfs("fullrun", "size=64k");
  cpSync(join(dir, "run"), join(fullrun, "run"), { recursive: true });
  fill(fullrun);
  // room for a run's first files but not for the workload the preflight stages
  tmpfs("stage", "size=64k");
  // a 0700 root directory holding every kind of input, and a run nobody may read but not write
  const p = join(dir, "p");
  mkdirSync(p);
  for (const f of ["run", "suite.yaml"]) cpSync(join(dir, f), join(p, f), { recursive: true });
  cpSync(join(dir, "keys"), join(p, "keys"), { recursive: true });
  cpSync(join(dir, "run"), join(p, "signed"), { recursive: true });
  expect(gpucheck(["certify", "p/signed", "--key", "keys/gpucheck.key"]).status).toBe(0);
  writeFileSync(join(p, "hosts"), "node-1\n");
  copyFileSync(join(repo, "test", "fixtures", "nccl", "alltoall-inplace-na-v2.19.6.txt"), join(p, "log.txt"));
  chmodSync(p, 0o700);
  cpSync(join(dir, "run"), join(dir, "rootrun"), { recursive: true });
  chmodSync(join(dir, "rootrun"), 0o755);
  // nobody's own key pair, made by nobody, for the rows that must get past reading the key
  mkdirSync(join(dir, "nk"));
  chownSync(join(dir, "nk"), 65534, 65534);
  expect(gpucheck(["keygen", "--out", "nk/keys"], true).status).toBe(0);
}, 60_000);

afterAll(() => {
  for (const m of mounts.reverse()) spawnSync("umount", [m]);
});

function gpucheck(args: string[], asNobody = false) {
  const [cmd, ...pre] = asNobody ? [RUNUSER, "-u", "nobody", "--", ...argv] : argv;
  return spawnSync(cmd!, [...pre, ...args], { cwd: dir, encoding: "utf8", env: { PATH: "/usr/bin:/bin", HOME: join(dir, "home"), NO_COLOR: "1" }, timeout: 60_000 });
}

/** Every path under the scratch directory (into the mounts too) with its size; home/ is Bun's cache when run from sources. */
function tree(): string[] {
  return readdirSync(dir, { recursive: true })
    .map(String)
    .filter((p) => !p.startsWith("home"))
    .sort()
    .map((p) => `${p} ${statSync(join(dir, p)).isDirectory() ? "dir" : statSync(join(dir, p)).size}`);
}

interface Row {
  name: string;
  args: string[];
  code: number;
  /** the line, or a pattern where a byte count varies */
  line: string | RegExp;
}

const CERT_OUT = "a new directory with --out <dir> (the run linked there and signed)";
const KEY = "keys/gpucheck.key";
/** nobody's private key */
const NK = "nk/keys/gpucheck.key";
const S = "suite.yaml";

const EROFS = (): Row[] => {
  const ro = (doing: string, path: string, choose = "another --out") =>
    `gpucheck: cannot ${doing} "${path}": the file system is read-only (EROFS): choose ${choose} on a writable file system`;
  return [
    { name: "suite --out", args: ["suite", S, "--out", "ro/run", "--progress", "none"], code: 2, line: ro("set up the results directory at", "ro/run") },
    { name: "judge --out", args: ["judge", "run", "--suite", S, "--out", "ro/j"], code: 2, line: ro("set up the results directory at", "ro/j") },
    { name: "certify --out", args: ["certify", "run", "--key", KEY, "--out", "ro/c"], code: 2, line: ro("set up the results directory at", "ro/c") },
    { name: "keygen --out", args: ["keygen", "--out", "ro/k"], code: 2, line: ro("write the key pair at", "ro/k") },
    {
      name: "certify <results-dir>",
      args: ["certify", "rorun/run", "--key", KEY],
      code: 2,
      line: ro("write the certificate at", "rorun/run/certificate.test-result.intoto.json", CERT_OUT),
    },
    {
      name: "report <results-dir>",
      args: ["report", "rorun/run"],
      code: 3,
      line: /^gpucheck: cannot write rorun\/run\/junit\.xml: the file system is read-only \(EROFS\), after 0 of \d+ bytes; the previous junit\.xml is intact: copy "rorun\/run" to a writable file system \(cp -a\) and run gpucheck again there$/,
    },
  ];
};

const ENOSPC = (): Row[] => {
  const full = (doing: string, path: string, df: string, choose = "another --out") =>
    `gpucheck: cannot ${doing} "${path}": no space left on the device (ENOSPC): free space there (df "${join(dir, df)}"), or choose ${choose} on another file system`;
  return [
    { name: "suite --out", args: ["suite", S, "--out", "full/run", "--progress", "none"], code: 2, line: full("set up the results directory at", "full/run", "full") },
    { name: "judge --out", args: ["judge", "run", "--suite", S, "--out", "full/j"], code: 2, line: full("set up the results directory at", "full/j", "full") },
    { name: "certify --out", args: ["certify", "run", "--key", KEY, "--out", "full/c"], code: 2, line: full("set up the results directory at", "full/c", "full") },
    { name: "keygen --out", args: ["keygen", "--out", "full/k"], code: 2, line: full("write the key pair at", "full/k", "full") },
    {
      name: "certify <results-dir>",
      args: ["certify", "fullrun/run", "--key", KEY],
      code: 2,
      line: full("write the certificate at", "fullrun/run/certificate.test-result.intoto.json", "fullrun/run", CERT_OUT),
    },
    {
      name: "report <results-dir>",
      args: ["report", "fullrun/run"],
      code: 3,
      line: /^gpucheck: cannot write fullrun\/run\/junit\.xml: no space left on the device \(ENOSPC\), after 0 of \d+ bytes; the previous junit\.xml is intact: free space there \(df "fullrun\/run"\) and run gpucheck again$/,
    },
  ];
};

const EACCES = (): Row[] => {
  const read = (doing: string, path: string, choose: string) =>
    `gpucheck: cannot ${doing} "${path}": permission denied (EACCES): make it readable by uid 65534 (ls -ld "${path}"), or choose ${choose}`;
  const write = (doing: string, path: string) =>
    `gpucheck: cannot ${doing} "${path}": permission denied (EACCES): choose another --out you can write to, or get write permission on "${join(dir, "p")}" (ls -ld "${join(dir, "p")}")`;
  return [
    { name: "suite <suite>", args: ["suite", "p/suite.yaml"], code: 2, line: read("read the suite file", "./p/suite.yaml", "another suite file") },
    { name: "suite --out", args: ["suite", S, "--out", "p/run2", "--progress", "none"], code: 2, line: write("set up the results directory at", "p/run2") },
    { name: "suite --hostfile", args: ["suite", S, "--hostfile", "p/hosts"], code: 2, line: read("read the hostfile", "p/hosts", "another --hostfile") },
    { name: "suite --baseline", args: ["suite", S, "--baseline", "p/run"], code: 2, line: read("read the baseline", "p/run", "another --baseline") },
    { name: "suite --sign-key", args: ["suite", S, "--sign-key", "p/keys/gpucheck.key"], code: 2, line: read("read the private key", "p/keys/gpucheck.key", "another --key") },
    { name: "judge <results-dir>", args: ["judge", "p/run", "--suite", S], code: 2, line: read("read the results", "p/run", "another results directory") },
    { name: "judge --suite", args: ["judge", "run", "--suite", "p/suite.yaml"], code: 2, line: read("read the suite file", "./p/suite.yaml", "another suite file") },
    { name: "judge --out", args: ["judge", "run", "--suite", S, "--out", "p/j"], code: 2, line: write("set up the results directory at", "p/j") },
    { name: "judge --baseline", args: ["judge", "run", "--suite", S, "--baseline", "p/run"], code: 2, line: read("read the results", "p/run", "another results directory") },
    {
      name: "certify <results-dir>",
      args: ["certify", "p/run", "--key", NK],
      code: 2,
      line: read("read the run to sign", "p/run/results.json", "another results directory"),
    },
    {
      name: "certify <results-dir> (readable, not writable)",
      args: ["certify", "rootrun", "--key", NK],
      code: 2,
      line: `gpucheck: cannot write the certificate at "rootrun/certificate.test-result.intoto.json": permission denied (EACCES): choose ${CERT_OUT} you can write to, or get write permission on "${join(dir, "rootrun")}" (ls -ld "${join(dir, "rootrun")}")`,
    },
    { name: "certify --key", args: ["certify", "run", "--key", "p/keys/gpucheck.key"], code: 2, line: read("read the private key", "p/keys/gpucheck.key", "another --key") },
    { name: "certify --out", args: ["certify", "run", "--key", NK, "--out", "p/c"], code: 2, line: write("set up the results directory at", "p/c") },
    { name: "keygen --out", args: ["keygen", "--out", "p/k"], code: 2, line: write("write the key pair at", "p/k") },
    { name: "report <results-dir>", args: ["report", "p/run"], code: 2, line: read("read the results", "p/run", "another results directory") },
    {
      name: "report <results-dir> (readable, not writable)",
      args: ["report", "rootrun"],
      code: 3,
      line: /^gpucheck: cannot write rootrun\/junit\.xml: permission denied \(EACCES\), after 0 of \d+ bytes; the previous junit\.xml is intact: get write permission on "rootrun" \(ls -ld "rootrun"\) and run gpucheck again$/,
    },
    {
      name: "verify <certificate>",
      args: ["verify", "p/signed/certificate.intoto.json", "--key", "keys/gpucheck.pub"],
      code: 2,
      line: read("read the certificate", "p/signed/certificate.intoto.json", "another certificate file"),
    },
    {
      name: "verify --key",
      args: ["verify", "p/signed/certificate.intoto.json", "--key", "p/keys/gpucheck.pub"],
      code: 2,
      line: read("read the public key", "p/keys/gpucheck.pub", "another --key"),
    },
    { name: "parse nccl <log>", args: ["parse", "nccl", "p/log.txt"], code: 2, line: read("read the nccl-tests log", "p/log.txt", "another log") },
  ];
};

describe.skipIf(!root)("(as root) errno × command × path through the binary", () => {
  for (const [errno, rows, asNobody] of [
    ["EROFS", EROFS, false],
    ["ENOSPC", ENOSPC, false],
    ["EACCES (as nobody)", EACCES, true],
  ] as const) {
    test(`${errno}: one line each, no stack trace, nothing left behind`, () => {
      const before = tree();
      for (const row of rows()) {
        const r = gpucheck(row.args, asNobody);
        const got = { row: row.name, code: r.status, stdout: r.stdout, lines: r.stderr.trimEnd().split("\n").length };
        expect(got).toEqual({ row: row.name, code: row.code, stdout: "", lines: 1 });
        if (typeof row.line === "string") expect(r.stderr).toBe(`${row.line}\n`);
        else expect(r.stderr.trimEnd()).toMatch(row.line);
        expect(tree()).toEqual(before);
      }
    }, 120_000);
  }

  test("ENOSPC while the preflight stages the workload: the run is an error, never a pass; no zero-byte or temporary file", () => {
    const r = gpucheck(["suite", S, "--out", "stage/run", "--progress", "plain"]);
    expect(r.status).toBe(3);
    expect(r.stderr).not.toContain("    at ");
    expect(r.stderr).toMatch(
      /preflight failed on \S+: preflight could not run: cannot stage the workload into "[^"]+\/stage\/run\/workload\/gpucheck_workload\/[\w.]+": no space left on the device \(ENOSPC\): free space there \(df "[^"]+"\), or choose another --out on another file system\n/,
    );
    const results = JSON.parse(readFileSync(join(dir, "stage", "run", "results.json"), "utf8"));
    expect(results.outcome).toBe("error");
    expect(results.preflight.passed).toBe(false);
    expect(results.tests.map((t: { outcome: string }) => t.outcome)).toEqual(["skipped"]);
    const junit = readFileSync(join(dir, "stage", "run", "junit.xml"), "utf8");
    expect(junit).toContain('<property name="outcome" value="error"/>');
    // the preflight is an error case of its own: skips alone would read as not failed in Jenkins
    expect(junit).toMatch(/<testsuite name="[^"]+" tests="2" failures="0" errors="1" skipped="1"/);
    expect(junit).toContain('<testcase name="preflight" classname="gpucheck.');
    expect(junit).toContain('<error message="preflight failed: ');
    const files = readdirSync(join(dir, "stage", "run"), { recursive: true }).map(String);
    expect(files.filter((f) => f.endsWith(".tmp") || (statSync(join(dir, "stage", "run", f)).isFile() && statSync(join(dir, "stage", "run", f)).size === 0))).toEqual([]);
    // the half-staged workload went: no module a later run could import half of
    expect(readdirSync(join(dir, "stage", "run", "workload", "gpucheck_workload"))).toEqual([]);
  }, 120_000);
});
