// lib/kinds/train/parse.ts on its own: the train command's GPUCHECK_RESULT → metrics, and what it says
// when that line is missing, cut or holds something other than numbers.
import { describe, expect, test } from "bun:test";
import { trainMeasurement } from "../../lib/kinds/train/parse.ts";

const RESULT = {
  model: "resnet18",
  samples_per_s: 812.5,
  samples_per_s_per_gpu: 406.25,
  tokens_per_s: null,
  tflops: null,
  step_time_ms: { mean: 20, p50: 19.5, p95: 24 },
  allreduce_share: 0.25,
  loss_start: 2.3,
  loss_end: 1.1,
  accuracy: null,
  history: [
    { step: 10, samples_per_s: 800, loss: 2 },
    { step: 20, samples_per_s: 825, loss: 1.5 },
    { step: 30, loss: null },
  ],
};
const line = (o: unknown) => `GPUCHECK_RESULT ${JSON.stringify(o)}\n`;

describe("trainMeasurement", () => {
  test("every metric from the RESULT line; fractions become %, series from the history", () => {
    const m = trainMeasurement(`[gpu01 rank 0] GPUCHECK_PROGRESS {"step":10}\n[gpu01 rank 0] ${line(RESULT)}`);
    expect(m.metrics).toEqual({
      samples_per_s: 812.5,
      samples_per_s_per_gpu: 406.25,
      tokens_per_s: null,
      tflops: null,
      step_time_ms: 20,
      step_time_p50_ms: 19.5,
      step_time_p95_ms: 24,
      allreduce_share: 25,
      loss_start: 2.3,
      loss_end: 1.1,
      accuracy: null,
    });
    // a history point without a number is left out of its series, not plotted at 0
    expect(m.series).toEqual({
      samples_per_s: [
        { x: 10, y: 800 },
        { x: 20, y: 825 },
      ],
      loss: [
        { x: 10, y: 2 },
        { x: 20, y: 1.5 },
      ],
    });
    expect(m.raw).toEqual(RESULT);
  });

  test("the last RESULT line counts", () => {
    expect(trainMeasurement(line({ samples_per_s: 1 }) + line({ samples_per_s: 2 })).metrics.samples_per_s).toBe(2);
  });

  test("no RESULT line: the training did not finish", () => {
    expect(() => trainMeasurement('GPUCHECK_PROGRESS {"step":10}\nTraceback (most recent call last):\n')).toThrow(
      "no GPUCHECK_RESULT line in rank 0's output: the training did not finish",
    );
  });

  test("a RESULT line cut by a crash is not data", () => {
    expect(() => trainMeasurement('GPUCHECK_RESULT {"samples_per_s": 81')).toThrow("no GPUCHECK_RESULT line in rank 0's output: the training did not finish");
  });

  test("values that are not finite numbers are null (unmeasured), never 0", () => {
    const m = trainMeasurement(line({ samples_per_s: "fast", step_time_ms: null, allreduce_share: "NaN", history: "none" }));
    expect(m.metrics.samples_per_s).toBeNull();
    expect(m.metrics.step_time_ms).toBeNull();
    expect(m.metrics.allreduce_share).toBeNull();
    expect(m.series).toEqual({ samples_per_s: [], loss: [] });
  });
});
