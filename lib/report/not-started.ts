// Tests a run planned but never started (Ctrl-C, SIGTERM): results.json lists them as skipped with
// the reason, and the outputs must not count them as finished.
import type { TestResult } from "../types.ts";

export const NOT_STARTED = "not started";

export function notStarted(t: TestResult): boolean {
  return t.units.length > 0 && t.units.every((u) => u.status === "skipped" && (u.message ?? "").startsWith(NOT_STARTED));
}

export function startedCount(tests: TestResult[]): number {
  return tests.filter((t) => !notStarted(t)).length;
}
