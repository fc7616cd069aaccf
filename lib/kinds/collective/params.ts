// A collective test's block: as written (zod), its defaults, and the rules that need the whole
// block (min ≤ max, a max the sweep reaches, GPUs for NCCL).
import { bool, intAtLeast, nonEmptyText, nonNegativeInt, oneOf, positiveInt, size, strictMap } from "../../core/fields.ts";
import { formatSize } from "../../core/units.ts";
import { given } from "../given.ts";
import type { ResolveContext } from "../../core/kind.ts";
import type { PathKey } from "../../core/issues.ts";
import { type Rails, railList } from "./rails.ts";

export const COLLECTIVE_OPS = ["all_reduce", "all_gather", "reduce_scatter", "alltoall", "broadcast"] as const;
export const DTYPES = ["float", "half", "bfloat16", "double", "int32"] as const;

export type CollectiveOp = (typeof COLLECTIVE_OPS)[number];

export interface CollectiveParams {
  op: CollectiveOp;
  minBytes: number;
  maxBytes: number;
  factor: number;
  iters: number;
  warmup: number;
  dtype: (typeof DTYPES)[number];
  check: boolean;
  /** checked calls per size and placement, each from its own fill (nccl-tests -c <check iteration count>) */
  checkIters: number;
  /** auto = nccl when GPUs are visible, gloo otherwise */
  backend: "auto" | "nccl" | "gloo";
  /** workload = gpucheck's own Python benchmark; nccl-tests = the official binaries */
  impl: "workload" | "nccl-tests";
  /** directory holding all_reduce_perf & co; PATH when absent */
  ncclTestsDir?: string;
  /** the sweep once per HCA, each run through that HCA alone (NCCL_IB_HCA==<hca>); "auto": every InfiniBand port of node 0 */
  rails?: Rails;
}

export const COLLECTIVE_DEFAULTS: Omit<CollectiveParams, "ncclTestsDir" | "rails"> = {
  op: "all_reduce",
  minBytes: 8,
  maxBytes: 8 * 1024 ** 3,
  factor: 2,
  iters: 20,
  warmup: 5,
  dtype: "float",
  check: true,
  // iters: every timed call has a checked twin (the resolver follows a test's own iters)
  checkIters: 20,
  backend: "auto",
  impl: "workload",
};

/** gloo on CPU moves a few hundred MB/s: a 16 MiB sweep top keeps the smoke test to seconds */
export const CPU_MAX_BYTES = 16 * 1024 ** 2;

export const collectiveBlock = () =>
  strictMap({
    op: oneOf("op", COLLECTIVE_OPS).optional(),
    minBytes: size().optional(),
    maxBytes: size().optional(),
    factor: intAtLeast(2).optional(),
    iters: positiveInt().optional(),
    warmup: nonNegativeInt().optional(),
    dtype: oneOf("dtype", DTYPES).optional(),
    check: bool().optional(),
    checkIters: positiveInt().optional(),
    backend: oneOf("backend", ["auto", "nccl", "gloo"]).optional(),
    impl: oneOf("impl", ["workload", "nccl-tests"]).optional(),
    ncclTestsDir: nonEmptyText().optional(),
    rails: railList().optional(),
  });

export function resolveCollective(c: Partial<CollectiveParams>, ctx: ResolveContext): CollectiveParams {
  const { report, sound, gpusAt } = ctx;
  const at = [...ctx.testAt, "collective"];
  const set = (...keys: Array<keyof typeof c>) => keys.filter((k) => c[k] !== undefined).map((k) => [...at, k]);
  // as many checked calls as timed ones on GPUs (nccl-tests -c: "checking correctness of results on
  // each iteration"), so a fault in one call of twenty is seen; one on CPU, where gloo's sweep is
  // a pipeline smoke test and every extra call is seconds on a 2-core machine
  const checkIters = c.checkIters ?? (ctx.gpusPerNode === 0 ? 1 : (c.iters ?? COLLECTIVE_DEFAULTS.iters));
  const p: CollectiveParams = { ...COLLECTIVE_DEFAULTS, ...(ctx.gpusPerNode === 0 && { maxBytes: CPU_MAX_BYTES }), ...given(c), checkIters };
  const cpu = ctx.gpusPerNode === 0 && sound("gpusPerNode");
  if (p.minBytes > p.maxBytes && sound("collective.minBytes", "collective.maxBytes", "gpusPerNode")) {
    report(
      [...at, c.minBytes !== undefined ? "minBytes" : "maxBytes"],
      `"minBytes" (${formatSize(p.minBytes)}) must not exceed "maxBytes" (${formatSize(p.maxBytes)})`,
      "value",
      set("maxBytes"),
    );
  } else if (p.maxBytes !== sweep(p).at(-1) && sound("collective.minBytes", "collective.maxBytes", "collective.factor", "gpusPerNode")) {
    // a sweep by factor 2 from 8 B never meets 8 GB: it stopped at 4 GiB and the threshold was judged there
    report([...at, c.maxBytes !== undefined ? "maxBytes" : "minBytes"], unreachableMax(p), "value", set("minBytes", "factor"));
  }
  if (cpu && p.backend === "nccl") report([...at, "backend"], `backend "nccl" needs GPUs: "gpusPerNode" is 0`, "value", gpusAt);
  if (cpu && p.impl === "nccl-tests") report([...at, "impl"], `impl "nccl-tests" needs GPUs: "gpusPerNode" is 0`, "value", gpusAt);
  if (p.impl === "nccl-tests" && p.backend === "gloo")
    report([...at, "backend"], `backend "gloo" cannot be used with impl "nccl-tests": nccl-tests always uses NCCL`, "value", set("impl"));
  if (p.ncclTestsDir !== undefined && p.impl !== "nccl-tests" && sound("collective.impl"))
    report([...at, "ncclTestsDir"], `"ncclTestsDir" applies to impl "nccl-tests" only`, "key", set("impl"));
  if (p.rails !== undefined && sound("collective.rails")) railsProblems(p, ctx, at, set);
  return p;
}

/** A rail is an HCA NCCL is pinned to: it needs NCCL, which only gpucheck's own benchmark runs once per rail. */
function railsProblems(p: CollectiveParams, ctx: ResolveContext, at: PathKey[], set: (...keys: Array<keyof CollectiveParams>) => PathKey[][]): void {
  const here = [...at, "rails"];
  const why = "NCCL_IB_HCA pins only NCCL's traffic, so no rail would be crossed";
  if (p.backend === "gloo" && ctx.sound("collective.backend")) ctx.report(here, `"rails" needs NCCL, but backend is "gloo": ${why}`, "key", set("backend"));
  else if (p.backend === "auto" && ctx.gpusPerNode === 0 && ctx.sound("gpusPerNode"))
    ctx.report(here, `"rails" needs NCCL, but "gpusPerNode" is 0: the collective runs on gloo, and ${why}`, "key", ctx.gpusAt);
  if (p.impl === "nccl-tests" && ctx.sound("collective.impl"))
    ctx.report(here, `"rails" applies to impl "workload" only: it runs gpucheck's benchmark once per rail`, "key", set("impl"));
}

/** The sizes nccl-tests measures: minBytes × factor^k up to maxBytes. */
export function sweep(c: Pick<CollectiveParams, "minBytes" | "maxBytes" | "factor">): number[] {
  const sizes: number[] = [];
  for (let s = c.minBytes; s <= c.maxBytes && sizes.length < 64; s *= c.factor) sizes.push(s);
  return sizes;
}

export function notInSweep(bytes: number, written: string, key: string, c: CollectiveParams): string {
  const sizes = sweep(c);
  const range = `${formatSize(c.minBytes)}…${formatSize(c.maxBytes)} by factor ${c.factor}`;
  const below = sizes.filter((s) => s < bytes).at(-1);
  const above = sizes.find((s) => s > bytes);
  const near = [below, above].filter((s) => s !== undefined).map((s) => formatSize(s!));
  return `size ${written} in "${key}" is not measured by the sweep ${range}${near.length ? `: nearest ${near.length === 1 ? "size is" : "sizes are"} ${near.join(" and ")}` : ""}`;
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
  for (const [unit, f] of [
    ["TB", 1e12],
    ["GB", 1e9],
    ["MB", 1e6],
    ["KB", 1e3],
  ] as const)
    if (bytes % f === 0) return `${bytes / f}${unit}`;
  return undefined;
}
