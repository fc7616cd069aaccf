// The quick profiles (h100-8x-quick, h200-8x-quick, b200-8x-quick): `plan` shows each test's expected
// time and a total near 15 minutes from the kinds' own estimates, and a --budget the full suite cannot
// fit says that its quick profile does.
import { expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { gpucheckRun, tempDir } from "../e2e/cli.ts";

const STARTUP = `, plus 10s start-up derived from gpu-1x's measured wall (BENCHMARKS.md "GPU figures"))`;

/** the plan's total, each test's heading (name and kind) and its expected line */
function timeLines(stdout: string): string[] {
  return stdout
    .split("\n")
    .filter((l) => /^expected total |^\d+\. |^ {3}expected: /.test(l))
    .map((l) => l.replace(/^(\d+\. \S+ {2}\[[^\]]+\]).*/, "$1"));
}

test("plan h100-8x-quick: every test estimated from its own sizes at the suite's floors, about 12 minutes in all", async () => {
  const r = await gpucheckRun(["plan", "h100-8x-quick"]);
  expect(r.status).toBe(0);
  expect(timeLines(r.stdout)).toEqual([
    "expected total 11m58s (estimated: the sum of the 13 tests' estimates)",
    "1. inventory  [inventory]",
    `   expected: 10s (estimated as its launch alone (its reads are inside the measured start-up)${STARTUP}`,
    "2. nvlink-allreduce  [collective]",
    `   expected: 16s (estimated from 31 sizes (8B…8GiB) × 87 calls (5 warm-up, 2 placements × (1 + 20 timed + 20 checked)) at the 460 GB/s busbw floor${STARTUP}`,
    "3. nvlink-ring-allreduce  [collective]",
    `   expected: 17s (estimated from 31 sizes (8B…8GiB) × 87 calls (5 warm-up, 2 placements × (1 + 20 timed + 20 checked)) at the 358 GB/s busbw floor${STARTUP}`,
    "4. ib-allreduce  [collective]",
    `   expected: 1m21s (estimated from 31 sizes (8B…8GiB) × 87 calls (5 warm-up, 2 placements × (1 + 20 timed + 20 checked)) at the 37 GB/s busbw floor${STARTUP}`,
    "5. resnet50-synthetic  [train]",
    `   expected: 20s (estimated from 150 steps × 69.5 ms: step p50 69.5 ms on one H100 (BENCHMARKS.md "GPU figures", gpu-1x run 1)${STARTUP}`,
    "6. transformer-bandwidth  [train]",
    `   expected: 17s (estimated from 40 steps × 177.2 ms: 8 × 1,024 tokens at 46,237 tokens/s = 177.2 ms a step on one H100 (BENCHMARKS.md "GPU figures", gpu-1x run 2)${STARTUP}`,
    "7. hbm-bandwidth  [membw]",
    `   expected: 10s (estimated from 23 copies and 23 triads of 2GiB (2 and 3 × size moved) at the 2345 GB/s floor, every GPU at once${STARTUP}`,
    "8. pcie-bandwidth  [pcie]",
    `   expected: 15s (estimated from 9 turns (each GPU alone, then all) × 23 calls of h2d, d2h and bidir on 256MiB at the 48 GB/s floor${STARTUP}`,
    "9. gemm  [gemm]",
    `   expected: 1m09s (estimated from 30s of warm-up and 16 shapes (1024…16384) × 150 calls per dtype at bf16 830.8, fp16 797.2, tf32 416.9 TFLOP/s, measured on one H100 (BENCHMARKS.md)${STARTUP}`,
    "10. burn  [burn]",
    `   expected: 5m10s (estimated from burn.duration (300s of load, plus a warm-up of 3 iterations)${STARTUP}`,
    "11. nvlink-bandwidth  [nvlink]",
    `   expected: 12s (estimated from 2 phases × 63 rounds (56 pairs alone, 7 all at once) × 23 messages of 256MiB at the 335 GB/s copy-engine floor; nvbandwidth's own run not counted (never measured)${STARTUP}`,
    "12. dcgm-diag  [dcgm]",
    `   expected: 2m10s (estimated from dcgm.level 2: level 2 lasts about two minutes (NVIDIA's dcgmi diag reference)${STARTUP}`,
    "13. nic-loopback  [nic-loopback]",
    `   expected: 11s (estimated from 5000 writes of 8MiB (perftest's default) at the 380 Gb/s floor, every HCA at once; perftest's warm-up not counted (never measured)${STARTUP}`,
  ]);
});

test("h200-8x-quick and b200-8x-quick: their own floors; b200 without the Ring all-reduce it does not judge", async () => {
  const h200 = timeLines((await gpucheckRun(["plan", "h200-8x-quick"])).stdout);
  expect(h200[0]).toBe("expected total 11m58s (estimated: the sum of the 13 tests' estimates)");
  // H200's NVLS floor is 431 GB/s, not H100's 460: 6.1 s of sweep against 5.7, both 16 s with the start-up
  expect(h200[4]).toBe(
    `   expected: 16s (estimated from 31 sizes (8B…8GiB) × 87 calls (5 warm-up, 2 placements × (1 + 20 timed + 20 checked)) at the 431 GB/s busbw floor${STARTUP}`,
  );
  const b200 = timeLines((await gpucheckRun(["plan", "b200-8x-quick"])).stdout);
  expect(b200[0]).toBe("expected total 11m38s (estimated: the sum of the 12 tests' estimates)");
  expect(b200.filter((l) => /^\d+\. /.test(l))).toEqual([
    "1. inventory  [inventory]",
    "2. nvlink-allreduce  [collective]",
    "3. ib-allreduce  [collective]",
    "4. resnet50-synthetic  [train]",
    "5. transformer-bandwidth  [train]",
    "6. hbm-bandwidth  [membw]",
    "7. pcie-bandwidth  [pcie]",
    "8. gemm  [gemm]",
    "9. burn  [burn]",
    "10. nvlink-bandwidth  [nvlink]",
    "11. dcgm-diag  [dcgm]",
    "12. nic-loopback  [nic-loopback]",
  ]);
});

test("plan h100-8x --budget 30m: the full suite does not fit, and the refusal says its quick profile does", async () => {
  const r = await gpucheckRun(["plan", "h100-8x", "--budget", "30m"]);
  expect(r.status).toBe(2);
  expect(r.stderr).toBe(
    "gpucheck: plan: suite h100-8x is expected to take 49m58s (estimated: the sum of the 14 tests' estimates), over --budget 30m00s by 19m58s; to fit, drop resnet18-fashionmnist (20m00s); or run its quick profile h100-8x-quick, expected 11m58s (estimated: the sum of the 13 tests' estimates), which fits\n",
  );
});

test("a budget the quick profile does not fit either names only what to drop; the quick profile itself fits 15m", async () => {
  const r = await gpucheckRun(["plan", "h100-8x", "--budget", "10m"]);
  expect(r.status).toBe(2);
  expect(r.stderr).toBe(
    "gpucheck: plan: suite h100-8x is expected to take 49m58s (estimated: the sum of the 14 tests' estimates), over --budget 10m00s by 39m58s; to fit, drop resnet18-fashionmnist (20m00s), dcgm-diag (15m10s), burn (10m10s)\n",
  );
  const q = await gpucheckRun(["plan", "h100-8x-quick", "--budget", "15m"]);
  expect(q.status).toBe(0);
  expect(q.stderr).toBe("gpucheck: expected total 11m58s fits --budget 15m00s with 3m02s to spare\n");
});

test("suite --budget names the quick profile too, before anything runs; --only, which chose its tests, does not", async () => {
  const cwd = tempDir("gpucheck-budget-quick-");
  const r = await gpucheckRun(["suite", "h100-8x", "--budget", "30m"], { cwd });
  expect(r.stderr).toBe(
    "gpucheck: suite: suite h100-8x is expected to take 49m58s (estimated: the sum of the 14 tests' estimates), over --budget 30m00s by 19m58s; to fit, drop resnet18-fashionmnist (20m00s); or run its quick profile h100-8x-quick, expected 11m58s (estimated: the sum of the 13 tests' estimates), which fits\n",
  );
  expect(r.status).toBe(2);
  const only = await gpucheckRun(["suite", "h100-8x", "--only", "burn,dcgm-diag", "--budget", "20m"], { cwd });
  expect(only.stderr).toBe(
    "gpucheck: suite: suite h100-8x is expected to take 25m20s (estimated: the sum of the 2 tests' estimates), over --budget 20m00s by 5m20s; to fit, drop dcgm-diag (15m10s)\n",
  );
  expect(only.status).toBe(2);
  expect(existsSync(join(cwd, "gpucheck-results"))).toBe(false);
});
