// A train test's block: as written (zod), its defaults per model, and the rules that need the
// whole block (data vs model, transformer-only keys, warm-up below steps).
import { nonEmptyText, nonNegativeInt, oneOf, positiveInt, strictMap } from "../../core/fields.ts";
import { given } from "../given.ts";
import type { ResolveContext } from "../../core/kind.ts";

export const MODELS = ["resnet18", "resnet50", "transformer"] as const;
export const DATASETS = ["synthetic", "fashionmnist", "cifar10", "cifar100"] as const;

export interface TrainParams {
  model: (typeof MODELS)[number];
  data: (typeof DATASETS)[number];
  /** where pre-staged data files live on the nodes; required for non-synthetic data */
  dataDir?: string;
  batchSize: number;
  steps: number;
  warmupSteps: number;
  imageSize?: number;
  layers?: number;
  width?: number;
  heads?: number;
  seqLen?: number;
  vocab?: number;
  precision: "auto" | "fp32" | "bf16";
}

export const GENERATED_DATA = "@generated";

type Shape = Pick<TrainParams, "batchSize" | "steps" | "warmupSteps">;
export const TRAIN_DEFAULTS: { resnet: Shape; transformer: Shape & Required<Pick<TrainParams, "layers" | "width" | "heads" | "seqLen" | "vocab">> } = {
  resnet: { batchSize: 256, steps: 100, warmupSteps: 10 },
  transformer: { batchSize: 16, steps: 50, warmupSteps: 5, layers: 12, width: 768, heads: 12, seqLen: 1024, vocab: 50304 },
};

export const SYNTHETIC_IMAGE_SIZE = 224;

export const trainBlock = () =>
  strictMap({
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

const TRANSFORMER_ONLY = ["layers", "width", "heads", "seqLen", "vocab"] as const;

/** `written` is undefined when the test has no train block: problems then point at the test. */
export function resolveTrain(written: Partial<TrainParams> | undefined, ctx: ResolveContext): TrainParams {
  const { report, sound } = ctx;
  const t = written ?? {};
  const at = written === undefined ? ctx.testAt : [...ctx.testAt, "train"];
  const model = t.model ?? "resnet18";
  const data = t.data ?? "synthetic";
  const transformer = model === "transformer";
  const base = transformer ? TRAIN_DEFAULTS.transformer : { ...TRAIN_DEFAULTS.resnet, ...(data === "synthetic" && { imageSize: SYNTHETIC_IMAGE_SIZE }) };
  const p: TrainParams = { ...base, precision: "auto", ...given(t), model, data };
  const modelKnown = sound("train.model");
  const set = (...keys: Array<keyof typeof t>) => keys.filter((k) => t[k] !== undefined).map((k) => [...at, k]);
  const dataKnown = sound("train.data");

  if (transformer && data !== "synthetic" && dataKnown)
    report([...at, "data"], `model "transformer" trains on synthetic tokens only: remove "data" or set it to "synthetic"`, "value", set("model"));
  if (data === "synthetic" && t.dataDir !== undefined && dataKnown) report([...at, "dataDir"], `"dataDir" has no use with data "synthetic"`, "key", set("data"));
  if (data !== "synthetic" && !transformer && t.dataDir === undefined && modelKnown && sound("train.dataDir", "train.?")) {
    report(
      at,
      `data "${data}" needs "dataDir": the directory holding the data set on the nodes${data === "fashionmnist" ? `, or "${GENERATED_DATA}" for a small generated set` : ""}`,
      "map",
    );
  }
  if (t.dataDir === GENERATED_DATA && data !== "fashionmnist" && dataKnown)
    report([...at, "dataDir"], `"${GENERATED_DATA}" is only available for data "fashionmnist", got data "${data}"`, "value", set("data"));
  if (modelKnown) {
    for (const key of TRANSFORMER_ONLY) if (!transformer && t[key] !== undefined) report([...at, key], `"${key}" applies to model "transformer" only`, "key", set("model"));
    if (transformer && t.imageSize !== undefined) report([...at, "imageSize"], `"imageSize" applies to ResNet models only`, "key", set("model"));
  }
  if (p.warmupSteps >= p.steps && sound("train.steps", "train.warmupSteps", "train.model")) {
    report(
      [...at, t.warmupSteps !== undefined ? "warmupSteps" : "steps"],
      `"warmupSteps" (${p.warmupSteps}) must be less than "steps" (${p.steps}): throughput is measured after warm-up`,
      "value",
      set("steps"),
    );
  }
  if (transformer && p.width! % p.heads! !== 0 && sound("train.width", "train.heads")) {
    report([...at, t.width !== undefined ? "width" : "heads"], `"width" (${p.width}) must be a multiple of "heads" (${p.heads})`, "value", set("heads"));
  }
  return p;
}
