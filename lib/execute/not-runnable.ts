// The run's record of a test its plan marked not runnable on the platform (lib/plan/not-runnable.ts):
// nothing was launched, so the one unit could not run, with the plan's reason. Judged like any
// unit that could not run (an error, never a pass or a skip), and saved as run-records.json so that
// `gpucheck judge` comes to the same verdict.
import type { PlannedTest } from "../core/types.ts";
import type { RunRecord } from "./record.ts";

export function notRunnableRecord(test: PlannedTest & { notRunnable: string }, now: string): RunRecord {
  return { unit: "all", hosts: [], status: "infra", message: test.notRunnable, startedAt: now, endedAt: now, ranks: [], output: "", tail: "", texts: [] };
}
