// A train test's expected wall time: steps × a per-step time, only where one was measured for the same
// model, data, batch and shape: gpu-1x on one H100 80GB HBM3 (BENCHMARKS.md "GPU figures", the slower
// of its two runs). With DDP on more GPUs each rank runs the same per-GPU batch; the gradient all-reduce
// overlaps the backward pass, and what it does not hide is not in the measured figure. Any other
// configuration has no measured step, and its timeout stays the upper bound.
import type { TrainParams } from "./params.ts";
import { type EstimateContext, type KindEstimate, ms } from "../time-basis.ts";

interface MeasuredStep {
  /** the block's fields that must match */
  match: Partial<TrainParams>;
  stepMs: number;
  source: string;
}

export const MEASURED_STEPS: MeasuredStep[] = [
  {
    match: { model: "resnet50", data: "synthetic", batchSize: 256, imageSize: 224, precision: "auto" },
    stepMs: 69.5,
    source: 'step p50 69.5 ms on one H100 (BENCHMARKS.md "GPU figures", gpu-1x run 1)',
  },
  {
    match: { model: "transformer", data: "synthetic", batchSize: 8, layers: 24, width: 2048, heads: 16, seqLen: 1024, precision: "auto" },
    // 8 × 1,024 tokens a step at 46,237 tokens/s (run 2, the slower)
    stepMs: 177.2,
    source: '8 × 1,024 tokens at 46,237 tokens/s = 177.2 ms a step on one H100 (BENCHMARKS.md "GPU figures", gpu-1x run 2)',
  },
];

export function trainExpected(p: TrainParams, t: EstimateContext): KindEstimate {
  const fits = (m: MeasuredStep) => Object.entries(m.match).every(([k, v]) => p[k as keyof TrainParams] === v);
  const step = t.gpusPerNode > 0 ? MEASURED_STEPS.find(fits) : undefined;
  if (!step) return { why: `no per-step time measured for ${p.model} on ${p.data} at batch ${p.batchSize}${t.gpusPerNode === 0 ? " on CPU" : ""}` };
  return { ms: ms((p.steps * step.stepMs) / 1000), basis: `estimated from ${p.steps} steps × ${step.stepMs} ms: ${step.source}` };
}
