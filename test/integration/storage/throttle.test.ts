// A real slow disk, found by the storage kind: two local ranks each given their own ext4 file system
// on a loop device (losetup on a file, mkfs.ext4, mount), both ranks in one blkio cgroup whose
// throttle holds rank 1's device (and only it) to 2 MiB/s each way: cgroup v1
// blkio.throttle.{read,write}_bps_device, or v2 io.max "MAJ:MIN rbps=… wbps=…". fio's O_DIRECT I/O
// goes through the throttle. The binary, copied alone into an empty directory, must fail exactly that
// disk by the outlier rule, named by host, path, loop device and MAJ:MIN, and pass the other.
// Needs root, losetup, mkfs.ext4, fio and a writable blkio/io controller; without them it says so and skips.
import { afterAll, describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { chmodSync, copyFileSync, existsSync, mkdirSync, readFileSync, rmdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import { tempDir } from "../../e2e/cli.ts";
import type { MetricCheck, ResultsFile } from "../../../lib/core/types.ts";

const V2 = existsSync("/sys/fs/cgroup/cgroup.controllers");
const CG_ROOT = V2 ? "/sys/fs/cgroup" : "/sys/fs/cgroup/blkio";
const cgroup = join(CG_ROOT, `gpucheck-disk-${randomBytes(4).toString("hex")}`);
const LIMIT = 2 * 1024 * 1024; // bytes/s: a 2 MiB/s disk beside a loop device at hundreds of MB/s
const dir = tempDir("storage-throttle");
const loops: string[] = [];
const mounts: string[] = [];

function sh(cmd: string, args: string[]): string {
  const r = spawnSync(cmd, args, { encoding: "utf8" });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(" ")}: ${(r.stderr || r.error?.message || "").trim()}`);
  return r.stdout.trim();
}

/** A file system on its own loop device per rank, the throttle on rank 1's; or why it cannot be made. */
function setUp(): string | null {
  try {
    if (process.getuid?.() !== 0) return "not root";
    for (const tool of ["fio", "losetup", "mkfs.ext4"]) if (spawnSync("sh", ["-c", `command -v ${tool}`]).status !== 0) return `${tool} is not installed`;
    for (const rank of [0, 1]) {
      const img = join(dir, `disk${rank}.img`);
      writeFileSync(img, "");
      sh("truncate", ["-s", "64M", img]);
      const loop = sh("losetup", ["-f", "--show", img]);
      loops.push(loop);
      sh("mkfs.ext4", ["-q", loop]);
      const mnt = join(dir, `d${rank}`);
      mkdirSync(mnt);
      sh("mount", [loop, mnt]);
      mounts.push(mnt);
    }
    const majmin = sh("lsblk", ["-dno", "MAJ:MIN", loops[1]!]).replace(/\s/g, "");
    if (V2) {
      const sub = readFileSync(join(CG_ROOT, "cgroup.subtree_control"), "utf8");
      if (!/\bio\b/.test(sub)) writeFileSync(join(CG_ROOT, "cgroup.subtree_control"), "+io");
      mkdirSync(cgroup);
      writeFileSync(join(cgroup, "io.max"), `${majmin} rbps=${LIMIT} wbps=${LIMIT}`);
    } else {
      mkdirSync(cgroup);
      writeFileSync(join(cgroup, "blkio.throttle.read_bps_device"), `${majmin} ${LIMIT}`);
      writeFileSync(join(cgroup, "blkio.throttle.write_bps_device"), `${majmin} ${LIMIT}`);
    }
    return null;
  } catch (err) {
    return (err as Error).message;
  }
}
const unavailable = setUp();
if (unavailable) console.warn(`skipping the throttled-disk test: ${unavailable} (needs root, fio, losetup, mkfs.ext4 and a writable blkio (v1) or io (v2) cgroup controller)`);

afterAll(() => {
  if (existsSync(cgroup)) {
    const tasks = readFileSync(join(cgroup, "cgroup.procs"), "utf8").split("\n").filter(Boolean);
    for (const pid of tasks) {
      try {
        writeFileSync(join(CG_ROOT, "cgroup.procs"), pid);
      } catch {
        // gone already
      }
    }
    rmdirSync(cgroup);
  }
  for (const m of mounts) spawnSync("umount", [m]);
  for (const l of loops) spawnSync("losetup", ["-d", l]);
});

describe("a disk throttled by a real cgroup I/O limit", () => {
  test.skipIf(unavailable !== null)(
    "the outlier rule fails rank 1's disk, named by path, loop device and MAJ:MIN, and passes rank 0's",
    () => {
      const bin = process.env.GPUCHECK_TEST_BINARY;
      if (!bin) throw new Error("GPUCHECK_TEST_BINARY is not set: run this file through scripts/test-integration.sh");
      const run = join(dir, "run");
      mkdirSync(run);
      copyFileSync(bin, join(run, "gpucheck"));
      chmodSync(join(run, "gpucheck"), 0o755);
      // both ranks join the cgroup before python starts: the limit is on rank 1's device, not on rank 1
      const wrapper = join(run, "python-in-cgroup");
      writeFileSync(wrapper, `#!/bin/sh\necho $$ > ${cgroup}/cgroup.procs\nexec /usr/bin/python3 "$@"\n`);
      chmodSync(wrapper, 0o755);
      writeFileSync(
        join(run, "suite.yaml"),
        `name: storage-throttle
tests:
  - name: disks
    kind: storage
    gpusPerNode: 0
    ranksPerNode: 2
    storage: { local: "${dir}/d{rank}", size: 8MiB, runtime: 1s, checkpoint: false }
    expect:
      storage_local_write_gbyte_s: { outlier: { below: 0.3 } }
      storage_local_read_gbyte_s: { outlier: { below: 0.3 } }
`,
      );
      const r = spawnSync("./gpucheck", ["suite", "suite.yaml", "--python", wrapper, "--out", "out", "--progress", "none"], {
        cwd: run,
        encoding: "utf8",
        env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: run, NO_COLOR: "1", TMPDIR: run },
        timeout: 120_000,
      });
      expect(r.stdout + r.stderr).toContain("Failing components:");
      expect(r.status).toBe(1);
      const results = JSON.parse(readFileSync(join(run, "out", "results.json"), "utf8")) as ResultsFile;
      const checks = results.tests[0]!.units[0]!.verdict.checks as MetricCheck[];
      const host = results.tests[0]!.units[0]!.hosts[0]!;
      expect(checks.map((c) => [c.metric, c.part?.type, c.part?.rank, c.ok])).toEqual([
        ["storage_local_write_gbyte_s", "disk", 0, true],
        ["storage_local_write_gbyte_s", "disk", 1, false],
        ["storage_local_read_gbyte_s", "disk", 0, true],
        ["storage_local_read_gbyte_s", "disk", 1, false],
      ]);
      const majmin = sh("lsblk", ["-dno", "MAJ:MIN", loops[1]!]).replace(/\s/g, "");
      const slow = `${host} disk local ${dir}/d1 on ${loops[1]} (${majmin}, ext4) [rank 1]`;
      const fast = `${host} disk local ${dir}/d0 on ${loops[0]} (`;
      for (const c of checks.filter((x) => !x.ok)) {
        expect(c.message.startsWith(`${slow}: ${c.metric} `)).toBe(true);
        expect(c.message).toContain(` × the median `);
        expect(c.message).toContain(`of 1 disk part: ${fast}`);
        expect(c.message).toEndWith("(< 0.3 expected)");
        // 2 MiB/s is about 0.0021 GB/s: the throttle, not noise, is what the rule saw
        expect(c.measured!).toBeLessThan(0.004);
        expect(c.outlier!.ratio).toBeLessThan(0.3);
      }
      // no other part is named in a failure
      expect(checks.filter((c) => c.ok).every((c) => c.part?.name?.includes(`${dir}/d0 on ${loops[0]}`))).toBe(true);
      // the details say how it was measured: direct I/O on ext4
      const comps = results.tests[0]!.units[0]!.measurement!.components!;
      expect(comps.map((c) => c.details?.storage_local_io)).toEqual(["direct I/O (O_DIRECT)", "direct I/O (O_DIRECT)"]);
    },
    150_000,
  );
});
