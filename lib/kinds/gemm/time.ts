// A gemm test's expected wall time (workload/gpucheck_workload/gemm.py): `warmupSeconds` of matmul, then
// per dtype and square shape n of the sweep `warmup` + `iters` products of 2n³ operations, every GPU at
// once. Each dtype's rate is the suite's gemm_<dtype>_tflops_min floor where it sets one, else the best
// shape measured on one H100 80GB HBM3 by the gpu-1x suite (BENCHMARKS.md "GPU figures", run 1). Smaller
// shapes run below the best shape's rate, so the sweep itself may take somewhat longer than this says;
// the warm-up, fixed, is most of the estimate at the default sizes.
import type { GemmDtype, GemmParams } from "./params.ts";
import { shapes } from "./params.ts";
import { type EstimateContext, floorOf, type KindEstimate, ms, num } from "../time-basis.ts";

/** TFLOP/s of the best shape, gpu-1x run 1 on one H100 (BENCHMARKS.md "GPU figures"); fp8 and fp32 were not run */
export const GEMM_MEASURED_TFLOPS: Partial<Record<GemmDtype, number>> = { bf16: 830.8, fp16: 797.2, tf32: 416.9 };

export function gemmExpected(p: GemmParams, t: EstimateContext): KindEstimate {
  if (t.gpusPerNode === 0) return { why: "gemm on CPU has no measured rate" };
  const ops = shapes(p).reduce((a, n) => a + 2 * n ** 3, 0) * (p.iters + p.warmup);
  let seconds = p.warmupSeconds;
  const rates: string[] = [];
  for (const d of p.dtypes) {
    const floor = floorOf(t.expect, `gemm_${d}_tflops_min`);
    const rate = floor ?? GEMM_MEASURED_TFLOPS[d];
    if (rate === undefined) return { why: `no gemm_${d}_tflops_min floor (min) and no measured ${d} rate to time the sweep at` };
    seconds += ops / (rate * 1e12);
    rates.push(`${d} ${num(rate)}${floor === undefined ? "" : " (floor)"}`);
  }
  const measured = p.dtypes.some((d) => floorOf(t.expect, `gemm_${d}_tflops_min`) === undefined) ? ", measured on one H100 (BENCHMARKS.md)" : "";
  return {
    ms: ms(seconds),
    basis: `estimated from ${p.warmupSeconds}s of warm-up and ${shapes(p).length} shapes (${p.minSize}…${p.maxSize}) × ${p.iters + p.warmup} calls per dtype at ${rates.join(", ")} TFLOP/s${measured}`,
  };
}
