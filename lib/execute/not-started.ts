// Tests a run planned but never started (Ctrl-C, SIGTERM, a failed preflight, --preflight-only): results.json lists them as skipped with
// the reason, and the outputs must not count them as finished.
import type { TestResult } from "../core/types.ts";

export const NOT_STARTED = "not started";
/** What a run written ahead says of a planned test until it ends; a killed run leaves it so (junit's error message). */
export const UNFINISHED_MESSAGE = "not finished: the run stopped before this test ended";
/** a failed preflight keeps every test from starting: "preflight failed on <node>: <why>" */
export const PREFLIGHT_FAILED = "preflight failed on";
/** `gpucheck suite --preflight-only` starts none */
export const PREFLIGHT_ONLY = "--preflight-only";

export function notStarted(t: TestResult): boolean {
  return t.units.length > 0 && t.units.every((u) => u.status === "skipped" && [NOT_STARTED, PREFLIGHT_FAILED, PREFLIGHT_ONLY].some((p) => (u.message ?? "").startsWith(p)));
}

export function startedCount(tests: TestResult[]): number {
  return tests.filter((t) => !notStarted(t)).length;
}
