// A unit's verdict as plain lines, the same in JUnit system-out, the summary and report.html.
import type { Check, UnitResult } from "../core/types.ts";
import { formatDuration } from "../core/quantity.ts";

export function checkMark(c: Check): string {
  if (c.ok) return "ok";
  return c.measured === null ? "NOT MEASURED" : "MISSED";
}

export function verdictLines(u: UnitResult): string[] {
  const head = `${u.verdict.outcome.toUpperCase()}: ${u.verdict.reason}`;
  const took = `unit ${u.unit} ran ${formatDuration(u.durationS)} (${u.startedAt} to ${u.endedAt})`;
  return [head, ...u.verdict.checks.flatMap((c) => [`  [${checkMark(c)}] ${c.message}`, ...remediationLines(c).map((l) => `    ${l}`)]), took];
}

/** A missed check's remediation as one line, with its source on the next ("remediation (reset-gpu): …"). */
export function remediationLines(c: Check): string[] {
  const r = c.remediation;
  return r ? [`remediation (${r.class}): ${r.action}`, `source: ${r.source}`] : [];
}

/** Every distinct remediation of these checks, one line each ("reset-gpu: reset the GPU …: node1 GPU 3 …"). */
export function remediationSummary(checks: Check[]): string[] {
  return [...new Set(checks.flatMap((c) => (c.remediation ? [`${c.remediation.class}: ${c.remediation.action}`] : [])))];
}

/**
 * The log tail without the workload's machine-readable lines (telemetry every 500 ms, progress per
 * size, inventory JSON, NCCL's forwarded INFO lines): they crowd out what a person needs and stay in the full logs.
 */
export function humanTail(tail: string): string {
  const kept = tail
    .split("\n")
    .filter((l) => !/GPUCHECK_(TELEMETRY|PROGRESS|INVENTORY|NCCL) \{|GPUCHECK_NCCL_INFO /.test(l))
    .join("\n");
  // a rank killed early may have printed nothing else: then those lines are all there is to show
  return kept.trim() === "" ? tail : kept;
}

/** The directory all of a unit's logs share ("logs/test/node/"), when there are enough to group. */
export function sharedLogDir(logs: string[], atLeast = 2): string | null {
  if (logs.length < atLeast) return null;
  const dir = logs[0].slice(0, logs[0].lastIndexOf("/") + 1);
  const shared = dir !== "" && logs.every((l) => l.startsWith(dir) && !l.slice(dir.length).includes("/"));
  return shared ? dir : null;
}
