// The shape of one test as written. Everything but name and kind is optional here: defaults and
// cross-field rules (metric belongs to the kind, ranks vs GPUs, sizes in the sweep) are applied
// afterwards by lib/load/resolve.ts, which sees the whole suite.
import { z } from "zod";
import { show } from "../units.ts";
import { CONFIG_FIELDS } from "../parsers/inventory-config.ts";
import { suggest } from "./did-you-mean.ts";
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

/** What a node should have: the inventory metrics count against it (lib/parsers/inventory.ts). */
export const inventorySchema = strictMap({
  // the compute HCAs, as NCCL_IB_HCA names them; storage and Ethernet ports never count
  hcas: hcaList().optional(),
  nvlinksPerGpu: nonNegativeInt().optional(),
  // values every node and GPU of the run must have (lib/parsers/inventory-config.ts)
  config: pinMap().optional(),
});

const thresholdValue = () =>
  z.union([z.number(), z.string()], { error: (iss) => `must be a number, or a number with its unit such as "400 GB/s", got ${show(iss.input)}` });

/** Transport names, checked against the known set by lib/load/expect.ts (which knows the key they sit under). */
const transportList = () =>
  z.array(z.string({ error: (iss) => `must be a transport name such as NET/IB, got ${show(iss.input)}` }), {
    error: (iss) => (iss.input === undefined ? undefined : `must be a list of transports such as [NET/IB, GDRDMA], got ${show(iss.input)}`),
  });

/**
 * One threshold; values stay as written until the metric (and so the unit) is known. `require` and
 * `forbid` belong to the `transport` entry, min/max/baseline to the metrics: expect.ts says which.
 */
export const thresholdSchema = strictMap(
  {
    min: thresholdValue().optional(),
    max: thresholdValue().optional(),
    baseline: ratio().optional(),
    require: transportList().optional(),
    forbid: transportList().optional(),
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
  inventory: inventorySchema.optional(),
  // keys are metric names, optionally with a message size: busbw, busbw@1GiB
  expect: z.record(z.string(), thresholdSchema, { error: (iss) => (iss.input === undefined ? undefined : `must be a map of metric names to thresholds, got ${show(iss.input)}`) }).optional(),
});

export type TestInput = z.output<typeof testSchema>;
export type ThresholdInput = z.output<typeof thresholdSchema>;

const HCA = /^[A-Za-z0-9_.-]+(:\d+)?$/;

/** `[mlx5_0, mlx5_3]` or NCCL_IB_HCA's own `mlx5_0,mlx5_3` (a leading `=` means exact names there too). */
function hcaList() {
  return z.unknown().transform((v, ctx) => {
    const items = typeof v === "string" ? v.replace(/^=/, "").split(",").map((x) => x.trim()) : Array.isArray(v) ? v : null;
    if (!items || items.length === 0) {
      const got = items ? "an empty list" : show(v);
      ctx.issues.push({ code: "custom", input: v, message: `must be a list of HCA names such as [mlx5_0, mlx5_3] or "mlx5_0,mlx5_3", got ${got}` });
      return z.NEVER;
    }
    const bad = items.findIndex((x) => typeof x !== "string" || !HCA.test(x));
    if (bad >= 0) {
      const message = `invalid HCA name ${show(items[bad])}: expected a device name such as mlx5_0, or mlx5_0:1 for one port`;
      ctx.issues.push({ code: "custom", input: items[bad], message, ...(Array.isArray(v) && { path: [bad] }) });
      return z.NEVER;
    }
    return items as string[];
  });
}

function pinMap() {
  return z.unknown().transform((v, ctx) => {
    if (v === null || typeof v !== "object" || Array.isArray(v)) {
      ctx.issues.push({ code: "custom", input: v, message: `must be a map of fields to the value every node must have, such as { driver: "550.90.07", power_limit_w: 700 }, got ${show(v)}` });
      return z.NEVER;
    }
    const out: Record<string, string | number> = {};
    for (const [k, value] of Object.entries(v)) {
      if (!Object.hasOwn(CONFIG_FIELDS, k)) {
        ctx.issues.push({ code: "custom", path: [k], params: { at: "key" }, input: k, message: suggest(`unknown config field ${show(k)}`, k, Object.keys(CONFIG_FIELDS)) });
      } else if (typeof value === "string" || typeof value === "number") {
        out[k] = value;
      } else {
        ctx.issues.push({ code: "custom", path: [k], input: value, message: `must be a string or a number, got ${show(value)}` });
      }
    }
    return out;
  });
}
