// A test's result around its units: what was planned, how it was launched, and the verdict.
import { paramsOf } from "../kinds/mod.ts";
import { headlineOf } from "./judge.ts";
import type { PlannedTest, TestResult, UnitResult } from "../core/types.ts";
import { redactEnv } from "../core/redact.ts";
import { UNFINISHED_MESSAGE } from "../execute/not-started.ts";

export function testResult(test: PlannedTest, units: UnitResult[], outcome: TestResult["outcome"]): TestResult {
  return {
    name: test.name,
    kind: test.kind,
    perNode: test.perNode,
    nodes: test.nodes,
    gpusPerNode: test.gpusPerNode,
    worldSize: test.worldSize,
    launch: launchOf(test),
    expect: test.expect,
    headline: headlineOf(test.kind, test.expect, paramsOf(test.spec)),
    units,
    outcome,
  };
}

/** What each rank ran and with which environment: enough to rerun one test by hand, its secrets as *** (lib/core/redact.ts). */
function launchOf(test: PlannedTest): { command: string[]; env: Record<string, string> } {
  return { command: [test.launch.python, ...test.launch.args], env: redactEnv(test.launch.env, test.launch.secret ?? []) };
}

/**
 * A planned test as a run written ahead lists it before it ends: unfinished, an error in junit.xml,
 * so that a run killed now reads as what it is. Replaced by the test's result when it ends.
 */
export function unfinishedTest(test: PlannedTest, now: string): TestResult {
  const unit: UnitResult = {
    unit: "all",
    hosts: [],
    status: "unfinished",
    message: UNFINISHED_MESSAGE,
    startedAt: now,
    endedAt: now,
    durationS: 0,
    measurement: null,
    verdict: { outcome: "unfinished", reason: UNFINISHED_MESSAGE, checks: [] },
    logs: [],
    tail: "",
  };
  return testResult(test, [unit], "unfinished");
}

/** A test that never started, with why; `now` stamps it (the caller owns the clock). */
export function skippedTest(test: PlannedTest, reason: string, now: string): TestResult {
  const unit: UnitResult = {
    unit: "all",
    hosts: [],
    status: "skipped",
    message: reason,
    startedAt: now,
    endedAt: now,
    durationS: 0,
    measurement: null,
    verdict: { outcome: "skipped", reason, checks: [] },
    logs: [],
    tail: "",
  };
  return testResult(test, [unit], "skipped");
}
