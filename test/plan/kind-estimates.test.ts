// Each kind's estimate of its own work (lib/kinds/<kind>/time.ts): the arithmetic on round numbers, the
// exact basis the plan prints, and why a kind that cannot estimate falls back to its timeout.
import { expect, test } from "bun:test";
import type { Expectation } from "../../lib/core/types.ts";
import type { CollectiveParams } from "../../lib/kinds/collective/params.ts";
import { collectiveExpected } from "../../lib/kinds/collective/time.ts";
import type { GemmParams } from "../../lib/kinds/gemm/params.ts";
import { gemmExpected } from "../../lib/kinds/gemm/time.ts";
import { inventoryExpected } from "../../lib/kinds/inventory/time.ts";
import { membwExpected } from "../../lib/kinds/membw/time.ts";
import { nicLoopbackExpected } from "../../lib/kinds/nic-loopback/time.ts";
import { nvlinkExpected } from "../../lib/kinds/nvlink/time.ts";
import { pcieExpected } from "../../lib/kinds/pcie/time.ts";
import type { StorageParams } from "../../lib/kinds/storage/params.ts";
import { storageExpected } from "../../lib/kinds/storage/time.ts";
import type { KindEstimate } from "../../lib/kinds/time-basis.ts";
import type { TrainParams } from "../../lib/kinds/train/params.ts";
import { trainExpected } from "../../lib/kinds/train/time.ts";

const msOf = (e: KindEstimate) => ("ms" in e ? e.ms : e.why);
const floor = (metric: string, min: number, unit = "GB/s"): Expectation => ({ metric, unit, min, text: `${metric} min ${min} ${unit}` });
const on = (expect: Expectation[], worldSize = 2, gpusPerNode = 2) => ({ expect, worldSize, gpusPerNode });

const COLL: CollectiveParams = {
  op: "all_reduce",
  minBytes: 1e9,
  maxBytes: 1e9,
  factor: 2,
  iters: 10,
  warmup: 0,
  dtype: "float",
  check: false,
  checkIters: 1,
  backend: "auto",
  impl: "workload",
};

test("collective: sizes × calls × bytes × the op's bus factor over the busbw floor, once per rail", () => {
  // one size of 1 GB, 2 placements × (1 + 10) calls, all_reduce on 2 ranks (bus factor 1), 10 GB/s: 2.2 s
  expect(collectiveExpected(COLL, on([floor("busbw", 10)]))).toEqual({
    ms: 2200,
    basis: "estimated from 1 sizes (1000000000B…1000000000B) × 22 calls (0 warm-up, 2 placements × (1 + 10 timed)) at the 10 GB/s busbw floor",
  });
  // 8 ranks: 2 × 7/8 = 1.75; 5 warm-up and 10 checked calls: 5 + 2 × 21 = 47 calls
  expect(msOf(collectiveExpected({ ...COLL, warmup: 5, check: true, checkIters: 10 }, on([floor("busbw", 10)], 8)))).toBe(8225);
  expect(msOf(collectiveExpected({ ...COLL, rails: ["mlx5_0", "mlx5_1"] }, on([floor("busbw", 10)])))).toBe(4400);
  // rails and no busbw floor: each rail's sweep at the rail_busbw floor, which an outlier rule beside it leaves a floor
  const rail = { ...floor("rail_busbw", 5), outlier: { below: 0.93 } } as unknown as Expectation;
  expect(collectiveExpected({ ...COLL, rails: ["mlx5_0", "mlx5_1"] }, on([rail]))).toEqual({
    ms: 8800,
    basis: "estimated from 1 sizes (1000000000B…1000000000B) × 22 calls (0 warm-up, 2 placements × (1 + 10 timed)) × 2 rails at the 5 GB/s rail_busbw floor",
  });
  expect(collectiveExpected({ ...COLL, rails: ["mlx5_0"] }, on([]))).toEqual({ why: "no busbw or rail_busbw floor (min) to time the sweep at" });
  expect(msOf(collectiveExpected({ ...COLL, op: "all_gather" }, on([floor("busbw", 10)], 4)))).toBe(1650);
  expect(collectiveExpected(COLL, on([{ metric: "busbw", unit: "GB/s", outlier: { below: 0.9 } } as unknown as Expectation]))).toEqual({
    why: "no busbw floor (min) to time the sweep at",
  });
  expect(collectiveExpected({ ...COLL, rails: "auto" }, on([floor("busbw", 10)]))).toEqual({ why: 'rails "auto": the number of HCAs is known only on the node' });
});

test("membw: copies (2 × size) and triads (3 × size), warm-up included, each at its floor", () => {
  const p = { size: 1e9, iters: 9, warmup: 1 };
  // 10 × (2 GB / 20 GB/s + 3 GB / 30 GB/s) = 2 s
  expect(membwExpected(p, on([floor("membw_copy_gbps_min", 20), floor("membw_triad_gbps_min", 30)]))).toEqual({
    ms: 2000,
    basis: "estimated from 10 copies and 10 triads of 1000000000B (2 and 3 × size moved) at the 20 and 30 GB/s floors, every GPU at once",
  });
  expect(membwExpected(p, on([]))).toEqual({ why: "no membw_copy_gbps_min floor (min) to time the copies at" });
});

test("pcie: each GPU alone then all, three copies a call counted as 4 × size, at the lower floor", () => {
  // 9 turns × 10 calls × 4 GB / 40 GB/s = 9 s
  expect(pcieExpected({ size: 1e9, iters: 9, warmup: 1 }, on([floor("pcie_h2d_gbps_min", 50), floor("pcie_d2h_gbps_min", 40)], 8, 8))).toEqual({
    ms: 9000,
    basis: "estimated from 9 turns (each GPU alone, then all) × 10 calls of h2d, d2h and bidir on 1000000000B at the 40 GB/s floor",
  });
});

test("nvlink: two phases of every ordered pair alone and n − 1 rounds all at once, at the pair floor or else the copy-engine one", () => {
  const p = { size: 1e9, iters: 9, warmup: 1 };
  // 4 GPUs: 12 pairs + 3 = 15 rounds; 2 × 15 × 10 × 1 GB / 100 GB/s = 3 s
  expect(nvlinkExpected(p, on([floor("nvlink_nvbw_read_gbps_min", 100)], 4, 4))).toEqual({
    ms: 3000,
    basis:
      "estimated from 2 phases × 15 rounds (12 pairs alone, 3 all at once) × 10 messages of 1000000000B at the 100 GB/s copy-engine floor; nvbandwidth's own run not counted (never measured)",
  });
  expect(msOf(nvlinkExpected(p, on([floor("nvlink_nvbw_read_gbps_min", 100), floor("nvlink_pair_gbps_min", 300)], 4, 4)))).toBe(1000);
});

const GEMM: GemmParams = { dtypes: ["bf16"], minSize: 10_000, maxSize: 20_000, step: 10_000, iters: 9, warmup: 1, warmupSeconds: 5, checksumSize: 64 };

test("gemm: the warm-up, then 2n³ per call per shape per dtype at the floor or the rate measured on an H100", () => {
  // (2e12 + 16e12) × 10 calls = 1.8e14 at 100 TFLOP/s = 1.8 s, plus 5 s of warm-up
  expect(gemmExpected(GEMM, on([floor("gemm_bf16_tflops_min", 100, "TFLOP/s")]))).toEqual({
    ms: 6800,
    basis: "estimated from 5s of warm-up and 2 shapes (10000…20000) × 10 calls per dtype at bf16 100 (floor) TFLOP/s",
  });
  // no floor: gpu-1x's measured 830.8 TFLOP/s; 1.8e14 / 830.8e12 = 0.217 s
  expect(msOf(gemmExpected(GEMM, on([])))).toBe(5217);
  expect(gemmExpected({ ...GEMM, dtypes: ["bf16", "fp8"] }, on([]))).toEqual({ why: "no gemm_fp8_tflops_min floor (min) and no measured fp8 rate to time the sweep at" });
  expect(gemmExpected(GEMM, on([], 2, 0))).toEqual({ why: "gemm on CPU has no measured rate" });
});

const RESNET50: TrainParams = { model: "resnet50", data: "synthetic", batchSize: 256, steps: 100, warmupSteps: 20, imageSize: 224, precision: "auto" } as TrainParams;

test("train: steps × the per-step time measured for the same configuration, and no estimate for any other", () => {
  expect(trainExpected(RESNET50, on([]))).toEqual({
    ms: 6950,
    basis: 'estimated from 100 steps × 69.5 ms: step p50 69.5 ms on one H100 (BENCHMARKS.md "GPU figures", gpu-1x run 1)',
  });
  expect(trainExpected({ ...RESNET50, batchSize: 128 }, on([]))).toEqual({ why: "no per-step time measured for resnet50 on synthetic at batch 128" });
  expect(trainExpected(RESNET50, on([], 2, 0))).toEqual({ why: "no per-step time measured for resnet50 on synthetic at batch 256 on CPU" });
});

test("nic-loopback: perftest's 5000 writes at the floor in Gb/s", () => {
  // 5000 × 10 MB × 8 bit / 400 Gb/s = 1 s
  expect(nicLoopbackExpected({ size: 1e7, timeout: 60_000 }, on([floor("nic_loopback_gbps_min", 400, "Gb/s")]))).toEqual({
    ms: 1000,
    basis: "estimated from 5000 writes of 10000000B (perftest's default) at the 400 Gb/s floor, every HCA at once; perftest's warm-up not counted (never measured)",
  });
});

const STORAGE: StorageParams = { local: "/scratch", size: 1e9, runtime: 10_000, checkpoint: true, checkpointSize: 1e9, direct: true };

test("storage: per path a sequential write and read at their floors and the random-read runtime; the checkpoint burst at its total floors", () => {
  const local = [floor("storage_local_write_gbyte_s_min", 2), floor("storage_local_read_gbyte_s_min", 4)];
  // 1 GB / 2 + 1 GB / 4 + 10 s
  expect(storageExpected(STORAGE, on(local))).toEqual({
    ms: 10_750,
    basis: "estimated from fio's jobs on local: 1000000000B written and read at the floors, 10s of random reads",
  });
  const shared = [floor("storage_shared_write_gbyte_s_min", 1), floor("storage_shared_read_gbyte_s_min", 1)];
  const burst = [floor("storage_checkpoint_write_total_gbyte_s", 8), floor("storage_checkpoint_read_total_gbyte_s", 16)];
  // local 10.75 + shared 1 + 1 + 10, then 4 ranks × 1 GB at 8 and 16 GB/s: 0.5 + 0.25
  expect(msOf(storageExpected({ ...STORAGE, shared: "/lustre" }, on([...local, ...shared, ...burst], 4)))).toBe(23_500);
  expect(storageExpected({ ...STORAGE, shared: "/lustre" }, on([...local, ...shared], 4))).toEqual({
    why: "no storage_checkpoint_write_total_gbyte_s floor (min) to time the checkpoint write at",
  });
  expect(storageExpected(STORAGE, on([]))).toEqual({ why: "no storage_local_write_gbyte_s_min floor (min) to time the sequential write of 1000000000B at" });
});

test("inventory: its launch alone", () => {
  expect(inventoryExpected()).toEqual({ ms: 0, basis: "estimated as its launch alone (its reads are inside the measured start-up)" });
});
