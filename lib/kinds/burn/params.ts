// A burn test's block: how long, and the sizes of each iteration's multiply, copy and all-reduce, as
// written (zod) and with their defaults (shorter and smaller on CPU).
import { duration, positiveInt, size, strictMap } from "../../core/fields.ts";
import { given } from "../given.ts";
import type { ResolveContext } from "../../core/kind.ts";

export interface BurnParams {
  /** ms of load after the warm-up */
  duration: number;
  /** M=N=K of each iteration's multiply */
  gemmSize: number;
  /** bytes copied per iteration */
  copySize: number;
  /** bytes all-reduced per iteration */
  allreduceSize: number;
  /** ms per summary window */
  window: number;
  /** iterations between two checksums of the seeded product */
  checksumEvery: number;
  /** M=N=K of the checksum's product */
  checksumSize: number;
}

// 10 minutes: long enough for a GPU to reach its steady temperature and for a cooling or power fault
// to pull its clocks down (a short benchmark finishes before either); the example is 30m.
// The sizes are the workload's (workload/gpucheck_workload/kinds/burn.py GPU, CPU): an 8192³ bf16 multiply
// is ≈1.5 ms on an H100; 1 GiB and 256 MiB are far above its 50 MiB L2.
// The checksum is gemm's (4096³, workload gemm.py GPU_CHECKSUM_SIZE), every 100 iterations: ≈0.2 ms
// every ≈0.5 s on an H100, about 1 % of the load, a few hundred checks in 10 minutes.
export const BURN_DEFAULTS: BurnParams = {
  duration: 600_000,
  gemmSize: 8192,
  copySize: 1024 ** 3,
  allreduceSize: 256 * 1024 ** 2,
  window: 10_000,
  checksumEvery: 100,
  checksumSize: 4096,
};
// 20 s and a few ms an iteration on a 2-core CI machine: thousands of samples, a run that fits in CI
export const BURN_CPU: Partial<BurnParams> = { duration: 20_000, gemmSize: 256, copySize: 16 * 1024 ** 2, allreduceSize: 1024 ** 2, checksumSize: 256 };
/** the copy and the all-reduce move float32 (workload/gpucheck_workload/kinds/burn.py ELEMENT) */
const ELEMENT = 4;

export const burnBlock = () =>
  strictMap({
    duration: duration().optional(),
    gemmSize: positiveInt().optional(),
    copySize: size().optional(),
    allreduceSize: size().optional(),
    window: duration().optional(),
    checksumEvery: positiveInt().optional(),
    checksumSize: positiveInt().optional(),
  });

export function resolveBurn(written: Partial<BurnParams> | undefined, ctx: ResolveContext): BurnParams {
  const p: BurnParams = { ...BURN_DEFAULTS, ...(ctx.gpusPerNode === 0 && BURN_CPU), ...given(written ?? {}) };
  for (const key of ["copySize", "allreduceSize"] as const) {
    if (p[key] < ELEMENT && ctx.sound(`burn.${key}`)) ctx.report([...ctx.testAt, "burn", key], `"${key}" must be at least ${ELEMENT}B (one float32), got ${p[key]}B`, "value");
  }
  if (p.window > p.duration && ctx.sound("burn.window", "burn.duration", "gpusPerNode")) {
    const at = written?.window !== undefined ? "window" : "duration";
    ctx.report([...ctx.testAt, "burn", at], `"window" (${p.window / 1000}s) must not exceed "duration" (${p.duration / 1000}s)`, "value");
  }
  return p;
}
