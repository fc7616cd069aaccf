// A unit's verdict as plain lines, the same in JUnit system-out, the summary and report.html.
import type { Check, UnitResult } from "../types.ts";
import { formatDuration } from "./quantity.ts";

export function checkMark(c: Check): string {
  if (c.ok) return "ok";
  return c.measured === null ? "NOT MEASURED" : "MISSED";
}

export function verdictLines(u: UnitResult): string[] {
  const head = `${u.verdict.outcome.toUpperCase()}: ${u.verdict.reason}`;
  const took = `unit ${u.unit} ran ${formatDuration(u.durationS)} (${u.startedAt} to ${u.endedAt})`;
  return [head, ...u.verdict.checks.map((c) => `  [${checkMark(c)}] ${c.message}`), took];
}
