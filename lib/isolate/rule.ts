// The judging rule in words, for the verdict's `rule` (and so results.json and the report).
import { formatNumber } from "../core/quantity.ts";
import type { Rules } from "./judge.ts";

export function describeRule(r: Rules): string {
  const status = "A group that failed or timed out is evidence against its nodes; one that could not launch is re-run once and otherwise no evidence.";
  if (r.floor !== undefined) return `${status} A group that passed is held against the test's floor ${formatNumber(r.floor)}.`;
  return `${status} With no floor set, a group that passed is held against comparable groups (node counts within 25 %) by NVIDIA ClusterKit's margins: bandwidth below ${r.outlierBelow} × the upper quartile of those groups, or latency above ${r.latencyAbove} × their lower quartile, is bad (a quartile rather than ClusterKit's best pair, so one lucky pair does not condemn healthy nodes).`;
}
