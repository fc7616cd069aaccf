// The shape of one test as written. Everything but name and kind is optional here: defaults and
// cross-field rules (metric belongs to the kind, ranks vs GPUs, sizes in the sweep) are applied
// afterwards by lib/load/resolve.ts, which sees the whole suite.
import { z } from "zod";
import { show } from "../units.ts";
import { bool, duration, envMap, intAtLeast, name, nonEmptyText, nonNegativeInt, oneOf, positiveInt, ratio, size, strictMap, text } from "./fields.ts";

export const KINDS = ["collective", "train", "inventory"] as const;
export const COLLECTIVE_OPS = ["all_reduce", "all_gather", "reduce_scatter", "alltoall", "broadcast"] as const;
export const DTYPES = ["float", "half", "bfloat16", "double", "int32"] as const;
export const MODELS = ["resnet18", "resnet50", "transformer"] as const;
export const DATASETS = ["synthetic", "fashionmnist", "cifar10", "cifar100"] as const;

export const collectiveSchema = strictMap({
  op: oneOf("op", COLLECTIVE_OPS).optional(),
  minBytes: size().optional(),
  maxBytes: size().optional(),
  factor: intAtLeast(2).optional(),
  iters: positiveInt().optional(),
  warmup: nonNegativeInt().optional(),
  dtype: oneOf("dtype", DTYPES).optional(),
  check: bool().optional(),
  backend: oneOf("backend", ["auto", "nccl", "gloo"]).optional(),
  impl: oneOf("impl", ["workload", "nccl-tests"]).optional(),
  ncclTestsDir: nonEmptyText().optional(),
});

export const trainSchema = strictMap({
  model: oneOf("model", MODELS).optional(),
  data: oneOf("data", DATASETS).optional(),
  dataDir: nonEmptyText().optional(),
  batchSize: positiveInt().optional(),
  steps: positiveInt().optional(),
  warmupSteps: nonNegativeInt().optional(),
  imageSize: positiveInt().optional(),
  layers: positiveInt().optional(),
  width: positiveInt().optional(),
  heads: positiveInt().optional(),
  seqLen: positiveInt().optional(),
  vocab: positiveInt().optional(),
  precision: oneOf("precision", ["auto", "fp32", "bf16"]).optional(),
});

const thresholdValue = () =>
  z.union([z.number(), z.string()], { error: (iss) => `must be a number, or a number with its unit such as "400 GB/s", got ${show(iss.input)}` });

/** One threshold; values stay as written until the metric (and so the unit) is known. */
export const thresholdSchema = strictMap(
  {
    min: thresholdValue().optional(),
    max: thresholdValue().optional(),
    baseline: ratio().optional(),
  },
  "a map such as { min: 400 GB/s }",
);

export const testSchema = strictMap({
  name: name("test name", /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/, "expected letters, digits, '.', '_' and '-', starting with a letter or digit"),
  kind: oneOf("kind", KINDS),
  description: text().optional(),
  nodes: positiveInt().optional(),
  gpusPerNode: nonNegativeInt().optional(),
  ranksPerNode: positiveInt().optional(),
  perNode: bool().optional(),
  timeout: duration().optional(),
  env: envMap().optional(),
  python: nonEmptyText().optional(),
  collective: collectiveSchema.optional(),
  train: trainSchema.optional(),
  // keys are metric names, optionally with a message size: busbw, busbw@1GiB
  expect: z.record(z.string(), thresholdSchema, { error: (iss) => (iss.input === undefined ? undefined : `must be a map of metric names to thresholds, got ${show(iss.input)}`) }).optional(),
});

export type TestInput = z.output<typeof testSchema>;
export type ThresholdInput = z.output<typeof thresholdSchema>;
