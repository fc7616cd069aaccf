// lib/kinds/storage/parse.ts on real results of the storage workload (test/fixtures/storage/, how each
// was made in its README): every rank's path a disk part named with the device behind it, the test's
// metrics the worst part's with every part named, the checkpoint aggregate over the slowest rank, and
// a path that could not be written null with the workload's reason, never 0.
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { storageMeasurement } from "../../lib/kinds/storage/parse.ts";
import { ParseError } from "../../lib/core/errors.ts";
import { partName } from "../../lib/core/parts.ts";

const FIX = join(import.meta.dir, "..", "fixtures", "storage");
const read = (name: string) => readFileSync(join(FIX, name), "utf8");

describe("storageMeasurement", () => {
  test("two ranks, local and shared paths and the checkpoint: parts named by host, path, device and MAJ:MIN", () => {
    const m = storageMeasurement(read("two-ranks-local-shared-checkpoint.out"));
    expect(m.components!.map((c) => partName(c.part))).toEqual([
      "vm disk local /tmp/h4s-run/d0 on /dev/vda (254:0, ext4) [rank 0]",
      "vm disk local /tmp/h4s-run/d1 on /dev/vda (254:0, ext4) [rank 1]",
      "vm disk shared /tmp/h4s-run/shared on /dev/vda (254:0, ext4) [rank 0]",
      "vm disk shared /tmp/h4s-run/shared on /dev/vda (254:0, ext4) [rank 1]",
    ]);
    const raw = m.raw as { ranks: Array<{ targets: { local: { seq_write: { mbps: number } } } }> };
    const writes = raw.ranks.map((r) => r.targets.local.seq_write.mbps / 1e3);
    expect(m.metrics.storage_local_write_gbyte_s_min).toBeCloseTo(Math.min(...writes), 6);
    expect(m.components![0]!.metrics.storage_local_write_gbyte_s).toBeCloseTo(writes[0]!, 6);
    // the worst first, every part named
    expect(m.details!.storage_local_write_gbyte_s_min).toMatch(/^vm disk local \/tmp\/h4s-run\/d[01] on \/dev\/vda \(254:0, ext4\) \[rank [01]\]: [0-9.]+ GB\/s; vm disk local /);
    expect(m.components![0]!.details).toEqual({ storage_local_io: "direct I/O (O_DIRECT)" });
    for (const metric of ["storage_local_randread_iops_min", "storage_local_randread_p99_us_max", "storage_shared_read_gbyte_s_min"]) expect(m.metrics[metric]).toBeGreaterThan(0);
    // the latency is the highest over the ranks, not the lowest
    const p99 = m.components!.filter((c) => c.part.name!.startsWith("local")).map((c) => c.metrics.storage_local_randread_p99_us as number);
    expect(m.metrics.storage_local_randread_p99_us_max).toBe(Math.max(...p99));
    // the checkpoint: both ranks' bytes over the slowest rank's wall time, each rank's own on its shared part
    expect(m.metrics.storage_checkpoint_write_total_gbyte_s).toBeGreaterThan(0);
    expect(m.details!.storage_checkpoint_write_total_gbyte_s).toMatch(/^2 ranks at once, 16777216 bytes over the slowest rank's [0-9.]+ s; vm disk shared /);
    expect(m.components![2]!.metrics.storage_checkpoint_read_gbyte_s).toBeGreaterThan(0);
    expect(m.unmeasured).toEqual({});
  });

  test("a rank whose path cannot be written: its figures null with the workload's reason naming node and path, never 0", () => {
    const m = storageMeasurement(read("rank1-unwritable.out"));
    const why = "vm: cannot write the local path /tmp/h4s-u/1: File exists (storage.local must name a directory the ranks' user can write)";
    expect(m.metrics.storage_local_write_gbyte_s_min).toBeNull();
    expect(m.unmeasured!.storage_local_write_gbyte_s_min).toBe(`vm disk local /tmp/h4s-u/1 on unknown device [rank 1]: ${why}`);
    expect(m.components![1]!.metrics.storage_local_read_gbyte_s).toBeNull();
    expect(m.components![1]!.unmeasured!.storage_local_read_gbyte_s).toBe(why);
    // rank 0's own figures are kept
    expect(m.components![0]!.metrics.storage_local_write_gbyte_s).toBeGreaterThan(0);
  });

  test("no result line, or one without ranks: one line saying what is missing", () => {
    expect(() => storageMeasurement("gpucheck-workload: error: x\n")).toThrow(new ParseError("no GPUCHECK_RESULT line in rank 0's output: the storage run did not finish"));
    expect(() => storageMeasurement('GPUCHECK_RESULT {"ranks":[]}\n')).toThrow(new ParseError("the storage result lists no ranks"));
  });
});
