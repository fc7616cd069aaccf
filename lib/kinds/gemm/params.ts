// A gemm test's block: as written (zod), its defaults (smaller on CPU), and the rules that need the
// whole block (min ≤ max, each dtype once).
import * as z from "../../core/schema.ts";
import { nonNegativeInt, oneOf, positiveInt, strictMap } from "../../core/fields.ts";
import { given } from "../given.ts";
import type { ResolveContext } from "../../core/kind.ts";

/** the workload's names (workload/gpucheck_workload/kinds/gemm.py DTYPES); tf32 is fp32 inputs on tensor cores */
export const GEMM_DTYPES = ["bf16", "fp16", "tf32", "fp8", "fp32"] as const;
export type GemmDtype = (typeof GEMM_DTYPES)[number];

export interface GemmParams {
  dtypes: GemmDtype[];
  /** the M=N=K sweep: minSize, minSize + step, … up to maxSize */
  minSize: number;
  maxSize: number;
  step: number;
  iters: number;
  warmup: number;
  /** seconds of matmul on every rank at once before the sweep (the MAMF finder's accelerator warm-up) */
  warmupSeconds: number;
  /** M=N=K of the product whose bits every rank hashes */
  checksumSize: number;
}

// 16 square shapes, 1024…16384 by 1024: the MAMF table (stas00/ml-engineering,
// compute/accelerator/README.md) found H100 SXM's bf16 best, 792.1 TFLOP/s, at 6144x17920x2816, whose
// sides lie in this range. Estimated (not measured here: no GPU) on an H100, all GPUs at once: the
// 30 s warm-up, then ≈10 s per dtype for bf16 and fp16 and ≈20 s for tf32 at 150 calls per shape.
// The warm-up and the calls per shape are the MAMF finder's (mamf-finder.py @84cf694:
// accelerator_warmup_seconds = 30, "a cold accelerator gives a higher score on say a single shape,
// than the same shape run after a dozen of other shapes"; --num_warmup_iterations 50,
// --num_iterations 100): the sweep reads the clock a GPU holds under load, not its cold boost.
// The workload's defaults are the same (workload/gpucheck_workload/kinds/gemm.py GPU_WARMUP_S, GPU_CALLS).
export const GEMM_DEFAULTS: GemmParams = {
  dtypes: [...GEMM_DTYPES],
  minSize: 1024,
  maxSize: 16384,
  step: 1024,
  iters: 100,
  warmup: 50,
  warmupSeconds: 30,
  checksumSize: 4096,
};
// torch on a CPU reaches a few GFLOP/s per core: 128…512 keeps a 2-rank run on a 2-core machine to
// seconds; a CPU has no boost clock to settle, so its warm-up is a second and a few calls per shape
export const GEMM_CPU_SIZES = { minSize: 128, maxSize: 512, step: 128, checksumSize: 256, iters: 10, warmup: 3, warmupSeconds: 1 };

export const gemmBlock = () =>
  strictMap({
    dtypes: z
      .array(oneOf("dtype", GEMM_DTYPES), { error: (iss) => (iss.input === undefined ? undefined : `must be a list of dtypes (${GEMM_DTYPES.join(", ")})`) })
      .min(1, { error: () => `must list at least one of ${GEMM_DTYPES.join(", ")}` })
      .optional(),
    minSize: positiveInt().optional(),
    maxSize: positiveInt().optional(),
    step: positiveInt().optional(),
    warmupSeconds: nonNegativeInt().optional(),
    iters: positiveInt().optional(),
    warmup: nonNegativeInt().optional(),
    checksumSize: positiveInt().optional(),
  });

export function resolveGemm(written: Partial<GemmParams> | undefined, ctx: ResolveContext): GemmParams {
  const { report, sound } = ctx;
  const g = written ?? {};
  const at = [...ctx.testAt, "gemm"];
  const set = (...keys: Array<keyof typeof g>) => keys.filter((k) => g[k] !== undefined).map((k) => [...at, k]);
  const p: GemmParams = { ...GEMM_DEFAULTS, ...(ctx.gpusPerNode === 0 && GEMM_CPU_SIZES), ...given(g) };
  if (p.minSize > p.maxSize && sound("gemm.minSize", "gemm.maxSize", "gpusPerNode")) {
    report([...at, g.minSize !== undefined ? "minSize" : "maxSize"], `"minSize" (${p.minSize}) must not exceed "maxSize" (${p.maxSize})`, "value", set("maxSize"));
  }
  const twice = p.dtypes.filter((d, i) => p.dtypes.indexOf(d) !== i);
  if (twice.length && sound("gemm.dtypes")) report([...at, "dtypes"], `"dtypes" lists ${[...new Set(twice)].map((d) => `"${d}"`).join(", ")} more than once`, "value");
  return p;
}

/** The shapes the sweep measures, as the workload computes them. */
export function shapes(p: Pick<GemmParams, "minSize" | "maxSize" | "step">): number[] {
  const out: number[] = [];
  for (let n = p.minSize; n <= p.maxSize; n += p.step) out.push(n);
  return out;
}
