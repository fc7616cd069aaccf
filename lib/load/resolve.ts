// One test (as far as it parsed) + the suite's defaults → a TestSpec with nothing left implicit,
// plus the problems only visible when fields are seen together (ranks vs GPUs, data vs model …).
// A check is skipped when a field it reads did not parse: that field already has its message.
import { COLLECTIVE_DEFAULTS, CPU_MAX_BYTES, type DefaultsInput, GENERATED_DATA, type PathKey, type Problem, SUITE_DEFAULTS, SYNTHETIC_IMAGE_SIZE, TRAIN_DEFAULTS, type TestInput } from "../schema.ts";
import type { CollectiveParams, TestSpec, TrainParams } from "../types.ts";
import { formatSize } from "../units.ts";
import { resolveExpect, sweep } from "./expect.ts";

type Report = (path: PathKey[], message: string, where?: Problem["at"], also?: PathKey[][]) => void;
/** true when none of these fields failed to parse ("gpusPerNode" covers defaults.gpusPerNode) */
export type Sound = (...fields: string[]) => boolean;

export function resolveTest(t: TestInput, d: DefaultsInput, at: PathKey[], broken: ReadonlySet<string> = new Set()): { spec: TestSpec; problems: Problem[] } {
  const problems: Problem[] = [];
  const report: Report = (path, message, where = "value", also = []) => problems.push({ path, message, at: where, ...(also.length && { also }) });
  const sound: Sound = (...fields) => fields.every((f) => !broken.has(f) && !broken.has(`defaults.${f}`) && !broken.has(f.split(".")[0]));
  // where a value came from: the test, else `defaults:`, else the test as a whole
  const from = (key: keyof TestInput & keyof DefaultsInput): PathKey[] => (t[key] !== undefined ? [...at, key] : d[key] !== undefined ? ["defaults", key] : at);
  const gpusAt = t.gpusPerNode !== undefined || d.gpusPerNode !== undefined ? [from("gpusPerNode")] : [];

  const gpusPerNode = t.gpusPerNode ?? d.gpusPerNode ?? SUITE_DEFAULTS.gpusPerNode;
  let ranksPerNode = t.ranksPerNode ?? d.ranksPerNode ?? (t.kind === "inventory" ? 1 : gpusPerNode);
  const ranksKnown = sound("gpusPerNode", "ranksPerNode");
  if (ranksPerNode === 0) {
    if (ranksKnown && !broken.has("?") && !broken.has("defaults.?")) report(at, `"ranksPerNode" is required when "gpusPerNode" is 0: how many CPU ranks to start on each node`, "map");
    ranksPerNode = 1;
  } else if (ranksKnown && gpusPerNode > 0 && ranksPerNode > gpusPerNode) {
    report(from("ranksPerNode"), `"ranksPerNode" (${ranksPerNode}) must not exceed "gpusPerNode" (${gpusPerNode}): each rank drives one GPU`, "value", gpusAt);
  }
  for (const block of ["collective", "train", "inventory"] as const) {
    if (t[block] !== undefined && t.kind !== block) report([...at, block], `"${block}" does not apply to kind "${t.kind}"`, "key", [[...at, "kind"]]);
  }

  const collective = t.kind === "collective" ? resolveCollective(t.collective ?? {}, gpusPerNode, gpusAt, [...at, "collective"], report, sound) : undefined;
  const train = t.kind === "train" ? resolveTrain(t.train ?? {}, t.train === undefined ? at : [...at, "train"], report, sound) : undefined;
  const expect = resolveExpect(t.expect ?? {}, t.kind, collective, train, [...at, "expect"], problems, sound, { perNode: gpusPerNode, at: gpusAt });

  const spec: TestSpec = {
    name: t.name,
    kind: t.kind,
    ...(t.description !== undefined && { description: t.description }),
    nodes: t.nodes ?? d.nodes ?? SUITE_DEFAULTS.nodes,
    ...(t.nodes !== undefined && { nodesSet: true }),
    gpusPerNode,
    ranksPerNode,
    perNode: t.perNode ?? t.kind === "inventory",
    timeoutMs: t.timeout ?? d.timeout ?? SUITE_DEFAULTS.timeoutMs,
    env: { ...d.env, ...t.env },
    python: t.python ?? d.python ?? SUITE_DEFAULTS.python,
    ...(collective && { collective }),
    ...(train && { train }),
    ...(t.kind === "inventory" && t.inventory && { inventory: given(t.inventory) }),
    expect,
  };
  return { spec, problems };
}

function given<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}

function resolveCollective(c: NonNullable<TestInput["collective"]>, gpus: number, gpusAt: PathKey[][], at: PathKey[], report: Report, sound: Sound): CollectiveParams {
  const set = (...keys: Array<keyof typeof c>) => keys.filter((k) => c[k] !== undefined).map((k) => [...at, k]);
  const p: CollectiveParams = { ...COLLECTIVE_DEFAULTS, ...(gpus === 0 && { maxBytes: CPU_MAX_BYTES }), ...given(c) };
  const cpu = gpus === 0 && sound("gpusPerNode");
  if (p.minBytes > p.maxBytes && sound("collective.minBytes", "collective.maxBytes", "gpusPerNode")) {
    report([...at, c.minBytes !== undefined ? "minBytes" : "maxBytes"], `"minBytes" (${formatSize(p.minBytes)}) must not exceed "maxBytes" (${formatSize(p.maxBytes)})`, "value", set("maxBytes"));
  }
  else if (p.maxBytes !== sweep(p).at(-1) && sound("collective.minBytes", "collective.maxBytes", "collective.factor", "gpusPerNode")) {
    // a sweep by factor 2 from 8 B never meets 8 GB: it stopped at 4 GiB and the threshold was judged there
    report([...at, c.maxBytes !== undefined ? "maxBytes" : "minBytes"], unreachableMax(p), "value", set("minBytes", "factor"));
  }
  if (cpu && p.backend === "nccl") report([...at, "backend"], `backend "nccl" needs GPUs: "gpusPerNode" is 0`, "value", gpusAt);
  if (cpu && p.impl === "nccl-tests") report([...at, "impl"], `impl "nccl-tests" needs GPUs: "gpusPerNode" is 0`, "value", gpusAt);
  if (p.impl === "nccl-tests" && p.backend === "gloo") report([...at, "backend"], `backend "gloo" cannot be used with impl "nccl-tests": nccl-tests always uses NCCL`, "value", set("impl"));
  if (p.ncclTestsDir !== undefined && p.impl !== "nccl-tests" && sound("collective.impl")) report([...at, "ncclTestsDir"], `"ncclTestsDir" applies to impl "nccl-tests" only`, "key", set("impl"));
  return p;
}

function unreachableMax(p: CollectiveParams): string {
  const sizes = sweep(p);
  const last = sizes.at(-1)!;
  const next = last * p.factor;
  const binary = [last, next].find((s) => s !== p.maxBytes && Math.abs(s - p.maxBytes) / p.maxBytes < 0.1);
  const decimal = decimalSize(p.maxBytes);
  const hint = binary !== undefined && decimal ? `; ${decimal} is ${p.maxBytes.toLocaleString("en-US")} bytes: did you mean ${formatSize(binary)}?` : "";
  return `"maxBytes" (${decimal ?? formatSize(p.maxBytes)}) is not a size of the sweep from ${formatSize(p.minBytes)} by factor ${p.factor}: it would stop at ${formatSize(last)} (nearest sizes ${formatSize(last)} and ${formatSize(next)})${hint}`;
}

/** 8e9 → "8GB": how a size written in SI units was most likely written */
function decimalSize(bytes: number): string | undefined {
  for (const [unit, f] of [["TB", 1e12], ["GB", 1e9], ["MB", 1e6], ["KB", 1e3]] as const) if (bytes % f === 0) return `${bytes / f}${unit}`;
  return undefined;
}

const TRANSFORMER_ONLY = ["layers", "width", "heads", "seqLen", "vocab"] as const;

function resolveTrain(t: NonNullable<TestInput["train"]>, at: PathKey[], report: Report, sound: Sound): TrainParams {
  const model = t.model ?? "resnet18";
  const data = t.data ?? "synthetic";
  const transformer = model === "transformer";
  const base = transformer ? TRAIN_DEFAULTS.transformer : { ...TRAIN_DEFAULTS.resnet, ...(data === "synthetic" && { imageSize: SYNTHETIC_IMAGE_SIZE }) };
  const p: TrainParams = { ...base, precision: "auto", ...given(t), model, data };
  const modelKnown = sound("train.model");
  const set = (...keys: Array<keyof typeof t>) => keys.filter((k) => t[k] !== undefined).map((k) => [...at, k]);
  const dataKnown = sound("train.data");

  if (transformer && data !== "synthetic" && dataKnown) report([...at, "data"], `model "transformer" trains on synthetic tokens only: remove "data" or set it to "synthetic"`, "value", set("model"));
  if (data === "synthetic" && t.dataDir !== undefined && dataKnown) report([...at, "dataDir"], `"dataDir" has no use with data "synthetic"`, "key", set("data"));
  if (data !== "synthetic" && !transformer && t.dataDir === undefined && modelKnown && sound("train.dataDir", "train.?")) {
    report(at, `data "${data}" needs "dataDir": the directory holding the data set on the nodes${data === "fashionmnist" ? `, or "${GENERATED_DATA}" for a small generated set` : ""}`, "map");
  }
  if (t.dataDir === GENERATED_DATA && data !== "fashionmnist" && dataKnown) report([...at, "dataDir"], `"${GENERATED_DATA}" is only available for data "fashionmnist", got data "${data}"`, "value", set("data"));
  if (modelKnown) {
    for (const key of TRANSFORMER_ONLY) if (!transformer && t[key] !== undefined) report([...at, key], `"${key}" applies to model "transformer" only`, "key", set("model"));
    if (transformer && t.imageSize !== undefined) report([...at, "imageSize"], `"imageSize" applies to ResNet models only`, "key", set("model"));
  }
  if (p.warmupSteps >= p.steps && sound("train.steps", "train.warmupSteps", "train.model")) {
    report([...at, t.warmupSteps !== undefined ? "warmupSteps" : "steps"], `"warmupSteps" (${p.warmupSteps}) must be less than "steps" (${p.steps}): throughput is measured after warm-up`, "value", set("steps"));
  }
  if (transformer && p.width! % p.heads! !== 0 && sound("train.width", "train.heads")) {
    report([...at, t.width !== undefined ? "width" : "heads"], `"width" (${p.width}) must be a multiple of "heads" (${p.heads})`, "value", set("heads"));
  }
  return p;
}
