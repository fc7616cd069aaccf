// A test planned as not runnable on the platform, judged from the record the run makes of it
// (lib/execute/not-runnable.ts): an error with the plan's reason, the same whether the run reached
// it or stopped before it (a failed preflight, --fail-fast), since it could never have run.
import type { PlannedTest, TestResult } from "../core/types.ts";
import { notRunnableRecord } from "../execute/not-runnable.ts";
import { assessTest } from "./assess.ts";

export function notRunnableResult(test: PlannedTest & { notRunnable: string }, now: string): TestResult {
  return assessTest(test, [notRunnableRecord(test, now)]);
}
