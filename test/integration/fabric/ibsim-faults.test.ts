// kind fabric's acceptance case on a real (simulated) InfiniBand subnet: ibsim runs the fat tree of
// test/fixtures/fabric/fat-tree.net (2 spines, 4 leaves, 16 HCAs), opensm gives it LIDs, and the
// compiled binary, copied alone into an empty directory, reads it with the real infiniband-diags tools
// under ibsim-run. Each fault goes in through ibsim's console (or ibportstate, the SMP tool an operator
// would use to narrow a port), is named exactly, with no healthy cable named, and is undone before the
// next. One ibsim for the file. Needs ibsim-utils, infiniband-diags, opensm (scripts/ci-deps.sh).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { spawn, spawnSync } from "node:child_process";
import { chmodSync, copyFileSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../../tmp.ts";

const root = join(import.meta.dir, "..", "..", "..");
const dir = tempDir("gpucheck-fabric-");
const base = join(dir, "ibsim");
const sock = `gpucheck-fabric-test-${process.pid}`;
const env = { PATH: "/usr/sbin:/usr/bin:/sbin:/bin", HOME: dir, IBSIM_SOCKNAME: sock, GPUCHECK_IBSIM_BASE: base, GPUCHECK_IBSIM_SOCKNAME: sock };
const exe = join(dir, "gpucheck");

function ibsim(...args: string[]): void {
  const r = spawnSync("bash", [join(root, "test/infra/ibsim.sh"), ...args], { env, encoding: "utf8" });
  if (r.status !== 0) throw new Error(`ibsim.sh ${args.join(" ")}: ${r.stderr}`);
}

function tool(...argv: string[]): void {
  const r = spawnSync("ibsim-run", argv, { env, encoding: "utf8" });
  if (r.status !== 0) throw new Error(`${argv.join(" ")}: ${r.stderr}`);
}

function gpucheck(...args: string[]): { status: number | null; stdout: string; stderr: string } {
  return spawnSync(exe, args, { cwd: dir, env, encoding: "utf8" });
}

function check(extra: string[] = []): { status: number | null; lines: string[] } {
  const r = gpucheck("fabric", "check", "--topology", "fat-tree.topo", "--via", "ibsim-run", ...extra);
  return { status: r.status, lines: r.stdout.trim().split("\n") };
}

beforeAll(() => {
  copyFileSync(process.env.GPUCHECK_TEST_BINARY ?? join(root, "compiled", "gpucheck"), exe);
  chmodSync(exe, 0o755);
  ibsim("start");
});
afterAll(() => ibsim("stop"));

describe("gpucheck fabric on the ibsim fat tree", () => {
  test("snapshot of the healthy fabric: 24 cables; check passes", () => {
    const s = gpucheck("fabric", "snapshot", "--via", "ibsim-run", "--out", "fat-tree.topo");
    expect(s.stdout).toBe("wrote 24 cables to fat-tree.topo\n");
    expect(s.status).toBe(0);
    expect(readFileSync(join(dir, "fat-tree.topo"), "utf8")).toContain('"node05 mlx5_0"[1] -- "leaf02"[1]  4X 2.5\n');
    expect(check()).toEqual({ status: 0, lines: ["PASS fabric: all 24 cables of fat-tree.topo as designed, no watched error counter moved"] });
  });

  test("swapped cable: both cables, all four ends", () => {
    for (const c of ['Unlink "leaf02"[1]', 'Unlink "leaf02"[2]', 'Link "leaf02"[1] "node06 mlx5_0"[1]', 'Link "leaf02"[2] "node05 mlx5_0"[1]']) ibsim("cmd", c);
    ibsim("sweep");
    expect(check()).toEqual({
      status: 1,
      lines: [
        'FAIL wrong-port: swapped cables: "node05 mlx5_0" port 1 goes to "leaf02" port 2 and "node06 mlx5_0" port 1 to "leaf02" port 1; the design cables "node05 mlx5_0" port 1 to "leaf02" port 1 and "node06 mlx5_0" port 1 to "leaf02" port 2: swap the cables at "leaf02" port 2 and "leaf02" port 1',
        "1 difference(s) from fat-tree.topo (24 cables)",
      ],
    });
    for (const c of ['Unlink "leaf02"[1]', 'Unlink "leaf02"[2]', 'Link "leaf02"[1] "node05 mlx5_0"[1]', 'Link "leaf02"[2] "node06 mlx5_0"[1]']) ibsim("cmd", c);
    ibsim("sweep");
    expect(check().status).toBe(0);
  });

  test("unlinked port: the missing cable and its polling switch port", () => {
    ibsim("cmd", 'Unlink "leaf03"[2]');
    expect(check()).toEqual({
      status: 1,
      lines: [
        'FAIL link-missing: cable "node10 mlx5_0" port 1 – "leaf03" port 2 (topology line 12) is missing: "leaf03" port 2 Down/Polling; "node10 mlx5_0" is not in the fabric; reseat the cable between "node10 mlx5_0" port 1 and "leaf03" port 2, and replace it if the fault stays; check the switch port',
        "1 difference(s) from fat-tree.topo (24 cables)",
      ],
    });
    ibsim("cmd", 'ReLink "leaf03"[2]');
    ibsim("sweep");
    expect(check().status).toBe(0);
  });

  test("port at reduced width: 1X where the design says 4X", () => {
    // leaf03 is LID 4 after opensm's sweep of this net file; its port 4 is node12's cable
    tool("ibportstate", "4", "4", "width", "1");
    expect(check()).toEqual({
      status: 1,
      lines: [
        'FAIL width: cable "node12 mlx5_0" port 1 – "leaf03" port 4 (topology line 14) trained at 1X, expected 4X: lanes are down; reseat the cable between "node12 mlx5_0" port 1 and "leaf03" port 4, and replace it if the fault stays; check the switch port',
        "1 difference(s) from fat-tree.topo (24 cables)",
      ],
    });
    tool("ibportstate", "4", "4", "width", "3");
    expect(check().status).toBe(0);
  });

  test("error counters raised on one port during the test: named with both ends of its cable", () => {
    expect(gpucheck("fabric", "counters", "--via", "ibsim-run", "--out", "before.txt").status).toBe(0);
    ibsim("cmd", 'PerformanceSet "leaf01"[5] PortCounters.SymbolErrorCounter=9');
    ibsim("cmd", 'PerformanceSet "leaf01"[5] PortCounters.LinkErrorRecoveryCounter=1');
    expect(check(["--counters-before", "before.txt"])).toEqual({
      status: 1,
      lines: [
        'FAIL counter: SymbolErrorCounter on "leaf01" port 5 moved from 0 to 9 during the test, cable "leaf01" port 5 – "spine01" port 1; reseat the cable between "leaf01" port 5 and "spine01" port 1, and replace it if the fault stays; check the switch port',
        'FAIL counter: LinkErrorRecoveryCounter on "leaf01" port 5 moved from 0 to 1 during the test, cable "leaf01" port 5 – "spine01" port 1; reseat the cable between "leaf01" port 5 and "spine01" port 1, and replace it if the fault stays; check the switch port',
        "2 difference(s) from fat-tree.topo (24 cables)",
      ],
    });
    // counted from a sweep taken after the fault: nothing moved since
    expect(gpucheck("fabric", "counters", "--via", "ibsim-run", "--out", "after.txt").status).toBe(0);
    expect(check(["--counters-before", "after.txt"]).status).toBe(0);
    for (const c of ["SymbolErrorCounter", "LinkErrorRecoveryCounter"]) ibsim("cmd", `PerformanceSet "leaf01"[5] PortCounters.${c}=0`);
  });

  test("PKeys: node16 alone in partition 0x8001 is named against the majority and against a declared set", () => {
    // opensm's partitions.conf: 0x8001 holds node16's port GUID only, as if the other 15 were left out of it
    writeFileSync(join(dir, "partitions.conf"), "Default=0x7fff, ipoib : ALL=full ;\ncompute=0x8001 : 0x000000000010001f=full ;\n");
    ibsim("sweep", join(dir, "partitions.conf"));
    const fix = "add the port's GUID to the partition in the subnet manager's partitions.conf (or remove it from the one it should not be in) and let the SM sweep";
    expect(check(["--pkeys", "majority"])).toEqual({
      status: 1,
      lines: [
        `FAIL pkey: "node16 mlx5_0" port 1 holds PKeys [0xffff, 0x8001], expected partitions [0x7fff] (what 15 of 16 compute ports hold); ${fix}`,
        "1 difference(s) from fat-tree.topo (24 cables)",
      ],
    });
    const declared = check(["--pkeys", "0x7fff,0x8001"]);
    expect([declared.status, declared.lines.length]).toEqual([1, 16]);
    expect(declared.lines[0]).toBe(`FAIL pkey: "node01 mlx5_0" port 1 holds PKeys [0xffff], expected partitions [0x0001, 0x7fff] (the declared PKeys [0x7fff, 0x8001]); ${fix}`);
    expect(declared.lines.some((l) => l.includes('"node16 mlx5_0"'))).toBe(false);
    const bad = gpucheck("fabric", "check", "--topology", "fat-tree.topo", "--via", "ibsim-run", "--pkeys", "0x7fff,zz");
    expect([bad.status, bad.stderr]).toEqual([
      2,
      'gpucheck fabric: --pkeys "0x7fff,zz": "zz" is not a PKey; give "majority" or PKeys in hex separated by commas ("0x7fff,0x8001")\n',
    ]);
  });

  test("a topology it cannot read: exit 2, the file and line named", () => {
    const r = gpucheck("fabric", "check", "--topology", "/nonexistent.topo", "--via", "ibsim-run");
    expect([r.status, r.stderr]).toEqual([2, "gpucheck fabric: cannot read the fabric topology /nonexistent.topo: ENOENT; give the path of a file you can read\n"]);
  });
});

// kind: fabric inside a suite, on platform local, through the same binary: the run sweeps the counters
// before its first test, and each fabric test compares with that sweep. The fault goes in while the
// suite runs: GPUCHECK_TEST_PAUSE stops the binary as its second test starts (after a first fabric
// test that passed), the counters are raised through ibsim's console, and the run goes on. The earlier
// test is a fabric test, not a torch one: no preflight probe and no torch import, about 1 s a run.
/**
 * The binary held as its second test starts (GPUCHECK_TEST_PAUSE stops it there), `fault` applied to
 * the fabric while it waits, then let go: its exit code.
 */
async function heldAtSecondTest(args: string[], fault: () => void): Promise<number | null> {
  const run = spawn(exe, args, { cwd: dir, env: { ...env, GPUCHECK_TEST_PAUSE: "test-start@2" } });
  let stderr = "";
  const paused = new Promise<void>((done) =>
    run.stderr.on("data", (b: Buffer) => {
      stderr += b.toString();
      if (stderr.includes("gpucheck-test-pause: test-start@2")) done();
    }),
  );
  const exited = new Promise<number | null>((done) => run.on("exit", (code) => done(code)));
  await paused;
  fault();
  run.kill("SIGCONT");
  return exited;
}

describe("kind: fabric in a suite on the ibsim fat tree", () => {
  const SUITE = [
    "name: fabric-accept",
    "description: the cabling against its design after the suite's load",
    "platform: { type: local }",
    "defaults: { gpusPerNode: 0, ranksPerNode: 1 }",
    "tests:",
    "  - { name: cabling, kind: fabric, fabric: { topology: fat-tree.topo, via: ibsim-run } }",
    "  - { name: fabric, kind: fabric, fabric: { topology: fat-tree.topo, via: ibsim-run } }",
    "",
  ].join("\n");
  const results = (out: string) => JSON.parse(readFileSync(join(dir, out, "results.json"), "utf8"));

  test("healthy: the fabric test passes, the counters at the start are in the run directory; no preflight for a suite of fabric tests alone", () => {
    // the fabric test alone: it asks nothing of the nodes, so the run starts no probe on them
    writeFileSync(join(dir, "fabric-only.yaml"), SUITE.replace(/ {2}- \{ name: cabling.*\n/, ""));
    const r = gpucheck("suite", "fabric-only.yaml", "--out", "healthy", "--progress", "plain");
    expect(r.status).toBe(0);
    expect(existsSync(join(dir, "healthy", "fabric-counters-start.txt"))).toBe(true);
    expect(results("healthy").preflight).toBeUndefined();
    const fabric = results("healthy").tests[0];
    expect([fabric.kind, fabric.outcome, fabric.units[0].verdict.reason]).toEqual([
      "fabric",
      "passed",
      "3 of 3 checks passed: fabric_cabling 0: every one of the 24 cables of fat-tree.topo in place and Active/LinkUp",
    ]);
  });

  test("error counters raised on one port while the suite runs: named with both cable ends, in results.json and junit.xml", async () => {
    writeFileSync(join(dir, "fabric-suite.yaml"), SUITE);
    const code = await heldAtSecondTest(["suite", "fabric-suite.yaml", "--out", "loaded", "--progress", "plain"], () =>
      ibsim("cmd", 'PerformanceSet "leaf01"[5] PortCounters.SymbolErrorCounter=9'),
    );
    expect(code).toBe(1);
    ibsim("cmd", 'PerformanceSet "leaf01"[5] PortCounters.SymbolErrorCounter=0');
    const message =
      'SymbolErrorCounter on "leaf01" port 5 moved from 0 to 9 since the start of the run (fabric-counters-start.txt), after test "cabling" ended (0 then), cable "leaf01" port 5 – "spine01" port 1; reseat the cable between "leaf01" port 5 and "spine01" port 1, and replace it if the fault stays; check the switch port';
    // the first fabric test saw the fabric before the fault, the second after it: both against the run's start,
    // and the second places the move after the first ended (its reading is the sweep after it)
    const [first, fabric] = results("loaded").tests;
    expect(first.outcome).toBe("passed");
    const failed = fabric.units[0].verdict.checks.filter((c: { ok: boolean }) => !c.ok);
    expect([fabric.outcome, failed.length, failed[0].message, failed[0].remediation.class]).toEqual(["failed", 1, message, "reseat-cable"]);
    const junit = readFileSync(join(dir, "loaded", "junit.xml"), "utf8");
    expect(junit).toContain('<testcase name="fabric [fabric] link &quot;leaf01&quot; port 5 – &quot;spine01&quot; port 1" classname="gpucheck.fabric-accept.fabric"');
  });

  test("a soak: every round compares with the soak's first sweep, so a counter raised before round 2 is named in rounds 2 and 3", async () => {
    // the binary held as round 2's fabric test starts (one process runs every round: its second test start)
    const code = await heldAtSecondTest(["soak", "fabric-only.yaml", "--rounds", "3", "--out", "soak", "--progress", "none"], () =>
      ibsim("cmd", 'PerformanceSet "leaf02"[3] PortCounters.LinkDownedCounter=2'),
    );
    expect(code).toBe(1);
    ibsim("cmd", 'PerformanceSet "leaf02"[3] PortCounters.LinkDownedCounter=0');
    expect(existsSync(join(dir, "soak", "fabric-counters-start.txt"))).toBe(true);
    const round = (n: number) => results(`soak/rounds/00${n}`).tests[0].units[0].verdict;
    expect(round(1).outcome).toBe("passed");
    for (const n of [2, 3])
      expect(round(n).reason).toBe(
        `LinkDownedCounter on "leaf02" port 3 moved from 0 to 2 since the soak began (fabric-counters-start.txt of soak), seen in round ${n}, cable "leaf02" port 3 – "node07 mlx5_0" port 1; reseat the cable between "leaf02" port 3 and "node07 mlx5_0" port 1, and replace it if the fault stays; check the switch port`,
      );
  });
});
