// The workload command line for a test: the same on every platform.
import { KINDS } from "../kinds/mod.ts";
import type { AnyKind } from "../core/kind.ts";
import type { TestSpec } from "../core/types.ts";

/** Telemetry sampling period on the nodes, seconds (issue 3: every 500 ms). */
export const TELEMETRY_INTERVAL_S = 0.5;

export function workloadArgs(test: TestSpec): string[] {
  const kind: AnyKind = KINDS[test.kind];
  const head = kind.telemetry ? ["-m", "gpucheck_workload", "--inventory", "--telemetry-interval", String(TELEMETRY_INTERVAL_S)] : ["-m", "gpucheck_workload"];
  return [...head, ...kind.args(kind.params(test))];
}
