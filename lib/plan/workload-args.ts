// The workload command line for a test: the same on every platform.
import { KINDS } from "../kinds/mod.ts";
import type { AnyKind } from "../core/kind.ts";
import type { TestSpec } from "../core/types.ts";

/** Telemetry sampling period on the nodes, seconds (issue 3: every 500 ms). */
export const TELEMETRY_INTERVAL_S = 0.5;

export function workloadArgs(test: TestSpec): string[] {
  const kind: AnyKind = KINDS[test.kind];
  const head = kind.telemetry ? ["-m", "gpucheck_workload", "--inventory", "--telemetry-interval", String(TELEMETRY_INTERVAL_S)] : ["-m", "gpucheck_workload"];
  // the backend is the suite's choice, made now: never what torch happens to see on the node (issue 26)
  const backend = kind.processGroup ? ["--backend", plannedBackend(test)] : [];
  return [...head, ...backend, ...kind.args(kind.params(test))];
}

/** nccl when the test asks for GPUs, gloo otherwise: what a kind's "auto" process group becomes. */
export function plannedBackend(test: Pick<TestSpec, "gpusPerNode">): "nccl" | "gloo" {
  return test.gpusPerNode > 0 ? "nccl" : "gloo";
}
