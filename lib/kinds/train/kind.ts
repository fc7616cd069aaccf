// kind: train: DDP training of a ResNet or a GPT-2-style transformer, judged on throughput after
// warm-up, step times, the share of a step spent in the gradient all-reduce, loss and accuracy.
import * as z from "../../core/schema.ts";
import { higher, lower } from "../../core/metrics.ts";
import { trainMeasurement } from "./parse.ts";
import type { KindBlocks, TestSpec } from "../../core/types.ts";
import { type TestKind, torchOnEveryGpu } from "../../core/kind.ts";
import { resolveTrain, trainBlock, type TrainParams } from "./params.ts";

export type { TrainParams } from "./params.ts";

const opt = (flag: string, v: number | string | undefined) => (v === undefined ? [] : [flag, String(v)]);

declare module "../../core/types.ts" {
  interface KindBlocks {
    train: { train: TrainParams };
  }
}

export const train: TestKind<"train", TrainParams, KindBlocks["train"]> = {
  name: "train",
  summary: "DDP training throughput of a ResNet or a GPT-2-style transformer on synthetic or real data",
  block: z.lazy(trainBlock),
  keys: [
    { key: "model", default: "resnet18", doc: "resnet50, transformer" },
    { key: "data", default: "synthetic", doc: "fashionmnist, cifar10, cifar100 (these need dataDir)" },
    {
      key: "dataDir",
      doc: 'required for real data: where the data set lies on the nodes, or "@generated" (fashionmnist only) for a small set gpucheck generates and stages itself',
    },
    { key: "batchSize", default: "256 (transformer 16)", doc: "per rank" },
    { key: "steps", default: "100 (transformer 50)", doc: "training steps" },
    { key: "warmupSteps", default: "10 (transformer 5)", doc: "not timed: throughput counts the steps after them" },
    { key: "imageSize", default: "224 on synthetic data", doc: "ResNet only; real data keeps its native size unless given" },
    { key: "layers", default: "12", doc: "transformer only (the defaults are GPT-2 small)" },
    { key: "width", default: "768", doc: "transformer only; a multiple of heads" },
    { key: "heads", default: "12", doc: "transformer only" },
    { key: "seqLen", default: "1024", doc: "transformer only" },
    { key: "vocab", default: "50304", doc: "transformer only" },
    { key: "precision", default: "auto", doc: "bf16 on GPUs that have it, else fp32; or fp32 | bf16" },
  ],
  perNode: false,
  resolve: (block, ctx) => ({ train: resolveTrain(block, ctx) }),
  params: (spec: TestSpec) => spec.train,
  metrics: {
    samples_per_s: higher("samples/s", "training throughput of the whole job after warm-up (images/s for ResNet)", { total: "job" }),
    samples_per_s_per_gpu: higher("samples/s", "samples_per_s divided by the number of ranks"),
    tokens_per_s: higher("tokens/s", "transformer throughput after warm-up", { models: ["transformer"], total: "job" }),
    tflops: higher("TFLOP/s", "model TFLOP/s of the whole job: (6 × parameters + 12 × layers × seqLen × width) × tokens/s", { models: ["transformer"], total: "job" }),
    step_time_ms: lower("ms", "mean step time after warm-up"),
    step_time_p50_ms: lower("ms", "median step time after warm-up"),
    step_time_p95_ms: lower("ms", "95th percentile step time after warm-up"),
    allreduce_share: lower("%", "share of step time with a gradient all-reduce in flight"),
    loss_start: lower("", "loss of the first step"),
    loss_end: lower("", "loss of the last step"),
    accuracy: higher("%", "accuracy on the data set's test split after training", { realData: true }),
  },
  // each rank's own loss (Measurement.components): a threshold on one judges every rank, so the rank that does not learn is named
  componentMetrics: {
    rank_loss_start: lower("", "this rank's loss on its own batch at the first step"),
    rank_loss_end: lower("", "this rank's mean loss on its own batches over its last 5 steps: a rank whose inputs or gradients are wrong stays near chance (ln(classes))"),
  },
  headline: "samples_per_s",
  metricProblem: (metric, info, p, sound) => {
    if (!p) return undefined;
    if (info.models && !info.models.includes(p.model) && sound("train.model")) {
      return { message: `metric "${metric}" is only produced by model ${info.models.map((m) => `"${m}"`).join(", ")}, not "${p.model}"`, key: "model" };
    }
    if (info.realData && p.data === "synthetic" && sound("train.data")) return { message: `metric "${metric}" needs a real data set: data is "synthetic"`, key: "data" };
    return undefined;
  },
  telemetry: true,
  processGroup: true,
  args: (t) =>
    t
      ? [
          "train",
          "--model",
          t.model,
          "--data",
          t.data,
          ...opt("--data-dir", t.dataDir),
          "--batch-size",
          String(t.batchSize),
          "--steps",
          String(t.steps),
          "--warmup-steps",
          String(t.warmupSteps),
          "--precision",
          t.precision,
          ...opt("--image-size", t.imageSize),
          ...opt("--layers", t.layers),
          ...opt("--width", t.width),
          ...opt("--heads", t.heads),
          ...opt("--seq-len", t.seqLen),
          ...opt("--vocab", t.vocab),
        ]
      : ["train"],
  measure: (output) => trainMeasurement(output),
  plots: (test, ctx) => {
    const series = ctx.series((u) => u.measurement?.series?.samples_per_s?.map((p) => [p.x, p.y] as [number, number]));
    if (series.length === 0) return [];
    return [ctx.plot("samples_per_s", { kind: "samples_per_s", title: `${test.name}: training throughput`, xLabel: "step", yLabel: "samples/s", series })];
  },
  // training picks its backend like `backend: auto`: NCCL whenever it has GPUs
  needs: torchOnEveryGpu,
  resultSource: "the GPUCHECK_RESULT line rank 0 of `gpucheck_workload train` prints (workload/gpucheck_workload/train.py), as lib/kinds/train/parse.ts reads it",
};
