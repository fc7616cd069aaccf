// kind fabric's acceptance case on a real (simulated) InfiniBand subnet: ibsim runs the fat tree of
// test/fixtures/fabric/fat-tree.net (2 spines, 4 leaves, 16 HCAs), opensm gives it LIDs, and the
// compiled binary, copied alone into an empty directory, reads it with the real infiniband-diags tools
// under ibsim-run. Each fault goes in through ibsim's console (or ibportstate, the SMP tool an operator
// would use to narrow a port), is named exactly, with no healthy cable named, and is undone before the
// next. One ibsim for the file. Needs ibsim-utils, infiniband-diags, opensm (scripts/ci-deps.sh).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { chmodSync, copyFileSync, readFileSync, writeFileSync } from "node:fs";
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
