// The train command's GPUCHECK_RESULT → metrics.
import { ParseError } from "../core/errors.ts";
import type { Measurement } from "../core/types.ts";
import { taggedLines } from "./protocol.ts";

const num = (v: unknown): number | null => (typeof v === "number" && Number.isFinite(v) ? v : null);
const pct = (v: unknown): number | null => (num(v) === null ? null : (v as number) * 100);

export function trainMeasurement(output: string): Measurement {
  const result = taggedLines(output, "RESULT").pop();
  if (!result) throw new ParseError("no GPUCHECK_RESULT line in rank 0's output: the training did not finish");
  const step = (result.step_time_ms ?? {}) as Record<string, unknown>;
  const history = Array.isArray(result.history) ? (result.history as Record<string, unknown>[]) : [];
  return {
    metrics: {
      samples_per_s: num(result.samples_per_s),
      samples_per_s_per_gpu: num(result.samples_per_s_per_gpu),
      tokens_per_s: num(result.tokens_per_s),
      tflops: num(result.tflops),
      step_time_ms: num(step.mean),
      step_time_p50_ms: num(step.p50),
      step_time_p95_ms: num(step.p95),
      allreduce_share: pct(result.allreduce_share),
      loss_start: num(result.loss_start),
      loss_end: num(result.loss_end),
      accuracy: pct(result.accuracy),
    },
    series: {
      samples_per_s: history.flatMap((h) => (num(h.step) !== null && num(h.samples_per_s) !== null ? [{ x: h.step as number, y: h.samples_per_s as number }] : [])),
      loss: history.flatMap((h) => (num(h.step) !== null && num(h.loss) !== null ? [{ x: h.step as number, y: h.loss as number }] : [])),
    },
    raw: result,
  };
}
