// The run's own verdict once its tests are over: the tests that never started accounted for
// (skipped, with why, in every output) and what an incomplete run can never be. Pure: the caller
// owns the clock.
import { judgeRun } from "./judge.ts";
import { NOT_STARTED } from "../execute/not-started.ts";
import type { PlannedTest, ResultsFile } from "../core/types.ts";
import { skippedTest, unfinishedTest } from "./test-result.ts";
import { notRunnableResult } from "./not-runnable.ts";

export interface RunEnd {
  /** why the run stopped before its last test (--fail-fast) */
  stopped?: string;
  /** the preflight's reason a test may not start (failed, or --preflight-only) */
  blocked?: (test: string) => string;
  /** Ctrl-C or SIGTERM */
  interrupted: boolean;
  now: string;
}

/**
 * results.json as a run written ahead stores it while it goes: every planned test not yet ended
 * listed as unfinished and the run itself unfinished, so that a kill at any moment leaves files no
 * reader takes for a pass. A closed run (endedAt set) is stored as it is.
 */
export function writtenAhead(results: ResultsFile, planned: PlannedTest[], now: string): ResultsFile {
  if (results.endedAt !== null) return results;
  const ended = new Set(results.tests.map((t) => t.name));
  const rest = planned.filter((t) => !ended.has(t.name)).map((t) => unfinishedTest(t, now));
  return { ...results, tests: [...results.tests, ...rest], outcome: "unfinished" };
}

export function closeRun(results: ResultsFile, planned: PlannedTest[], end: RunEnd): void {
  const ran = results.tests.length;
  let stopped = end.stopped;
  let notStarted = stopped ? `${NOT_STARTED}: ${stopped}` : NOT_STARTED;
  if (ran < planned.length && end.interrupted) {
    stopped = "interrupted by Ctrl-C or SIGTERM";
    notStarted = `${NOT_STARTED}: the run was interrupted (Ctrl-C or SIGTERM)`;
  }
  for (const test of planned.slice(ran)) {
    // a test the platform could never run is that error whatever stopped the run before it, bar Ctrl-C
    if (test.notRunnable && !end.interrupted) results.tests.push(notRunnableResult({ ...test, notRunnable: test.notRunnable }, end.now));
    else results.tests.push(skippedTest(test, !end.interrupted && end.blocked ? end.blocked(test.name) : notStarted, end.now));
  }
  if (stopped) results.stopped = stopped;
  // a run where no test ran (--preflight-only, Ctrl-C during preflight) did not pass: nothing was judged
  results.outcome = judgeRun(results.tests);
  // a failed preflight is the run's verdict: nothing was measured
  if (end.blocked && !results.preflight?.passed) results.outcome = "error";
  results.endedAt = end.now;
  // a run that stopped at preflight did all it meant to: complete, with the tests skipped and why
  results.complete = !end.interrupted && (ran === planned.length || end.blocked !== undefined);
  if (!results.complete && (results.outcome === "passed" || results.outcome === "skipped")) results.outcome = "error";
}
