// The test kinds gpucheck knows, by the name a suite's `kind:` gives them. Adding a kind: its own
// folder beside these (lib/kinds/<kind>/kind.ts; lib/core/kind.ts says what it holds), one line here,
// and its Python module (workload/gpucheck_workload/kinds/<kind>.py) with one line in
// workload/gpucheck_workload/kinds/__init__.py (CONTRIBUTING.md, "How to add a test kind").
import type { MetricInfo } from "../core/metrics.ts";
import type { KindBlocks, TestCommon, TestSpec } from "../core/types.ts";
import { TELEMETRY_METRICS } from "../core/metrics.ts";
import { burn } from "./burn/kind.ts";
import { collective } from "./collective/kind.ts";
import { dcgm } from "./dcgm/kind.ts";
import { fabric } from "./fabric/kind.ts";
import { gemm } from "./gemm/kind.ts";
import { inventory } from "./inventory/kind.ts";
import type { AnyKind } from "../core/kind.ts";
import { membw } from "./membw/kind.ts";
import { nic } from "./nic/kind.ts";
import { nicLoopback } from "./nic-loopback/kind.ts";
import { nvlink } from "./nvlink/kind.ts";
import { pcie } from "./pcie/kind.ts";
import { storage } from "./storage/kind.ts";
import { train } from "./train/kind.ts";

export const KINDS = {
  collective,
  train,
  inventory,
  gemm,
  membw,
  pcie,
  nvlink,
  dcgm,
  burn,
  nic,
  storage,
  "nic-loopback": nicLoopback,
  fabric,
} as const;

export type Kinds = typeof KINDS;
export type KindName = keyof Kinds;
export const KIND_NAMES = Object.keys(KINDS) as KindName[];

// Each kind's file declares its block in the core's KindBlocks (declaration merging): a kind left out
// of KINDS, or one declared but not registered, fails the type check here.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type Holds<T extends true> = T;
export type RegistryMatchesBlocks = Holds<Same<KindName, keyof KindBlocks> & { [K in KindName]: Same<ReturnType<Kinds[K]["resolve"]>, KindBlocks[K]> }[KindName]>;

/** The kind of a name that may come from a saved results.json of another gpucheck: undefined when unknown. */
export function kindOf(name: string): AnyKind | undefined {
  return Object.hasOwn(KINDS, name) ? (KINDS[name as KindName] as AnyKind) : undefined;
}

export function isKindName(name: unknown): name is KindName {
  return typeof name === "string" && Object.hasOwn(KINDS, name);
}

/** The metrics a test of this kind may have thresholds on: its own and the telemetry's. */
export function metricsFor(kind: KindName): Record<string, MetricInfo> {
  return { ...KINDS[kind].metrics, ...TELEMETRY_METRICS };
}

export function findMetric(kind: KindName, name: string): MetricInfo | undefined {
  const own: Record<string, MetricInfo> = KINDS[kind].metrics;
  return Object.hasOwn(own, name) ? own[name] : Object.hasOwn(TELEMETRY_METRICS, name) ? TELEMETRY_METRICS[name] : undefined;
}

/** A metric the kind measures on each part on its own (gemm_bf16_tflops of every GPU); undefined when not one. */
export function findComponentMetric(kind: KindName, name: string): MetricInfo | undefined {
  const own: Record<string, MetricInfo> = (KINDS[kind] as AnyKind).componentMetrics ?? {};
  return Object.hasOwn(own, name) ? own[name] : undefined;
}

/** The resolved block of a test (its CollectiveParams …), whatever its kind; undefined when it has none. */
export function paramsOf(spec: TestSpec): unknown {
  return (KINDS[spec.kind] as AnyKind).params(spec);
}

/** A test's fields without its kind's block: the start of a spec of another kind (preflight runs as an inventory). */
export function commonOf(spec: TestSpec): TestCommon {
  const out: Record<string, unknown> = { ...spec };
  for (const k of KIND_NAMES) delete out[k];
  delete out.kind;
  return out as unknown as TestCommon;
}
