// The train command's GPUCHECK_RESULT → metrics.
import { ParseError } from "../../core/errors.ts";
import type { ComponentValues, Measurement } from "../../core/types.ts";
import { taggedLines } from "../../parsers/protocol.ts";

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
    ...(Array.isArray(result.ranks) && { components: rankLosses(result.ranks as unknown[]) }),
  };
}

/** Each rank's own loss at the start and the end, as a part (the CPU rank or the GPU it ran on): a rank that does not learn is named. */
function rankLosses(ranks: unknown[]): ComponentValues[] {
  return ranks.map((x, i) => {
    const r = (x && typeof x === "object" ? x : {}) as Record<string, unknown>;
    const rank = num(r.rank) ?? i;
    const c: ComponentValues = {
      part: { type: r.device === "cuda" ? "gpu" : "cpu", host: typeof r.host === "string" ? r.host : "unknown host", rank },
      metrics: { rank_loss_start: num(r.loss_start), rank_loss_end: num(r.loss_end) },
      unmeasured: {},
    };
    for (const k of ["rank_loss_start", "rank_loss_end"]) if (c.metrics[k] === null) c.unmeasured![k] = `rank ${rank} reported no finite ${k.slice(5)}`;
    if (num(r.loss_end_steps) !== null) c.details = { rank_loss_end: `mean over its last ${r.loss_end_steps} steps, on its own batches` };
    return c;
  });
}
