// How long a plan is expected to take, per test and in total, and whether it fits a --budget. A test's
// own kind estimates it where its sizes say (lib/kinds/<kind>/time.ts); otherwise its timeout is the
// upper bound. An isolating pattern runs one such launch per round of its first pass.
import { SuiteError } from "../core/errors.ts";
import { formatDuration } from "../core/quantity.ts";
import { parseDuration } from "../core/units.ts";
import type { Plan, PlannedTest } from "../core/types.ts";
import { burnExpectedMs } from "../kinds/burn/time.ts";
import { dcgmExpectedMs } from "../kinds/dcgm/time.ts";
import { measuredTime } from "./measured-times.ts";

export interface ExpectedTime {
  ms: number;
  /** "estimated from …" or "measured: BENCHMARKS.md …" */
  basis: string;
}

export function fmtMs(ms: number): string {
  const s = Math.round(ms / 1000);
  return s < 60 ? `${s}s` : formatDuration(s);
}

function kindEstimate(t: PlannedTest): ExpectedTime | undefined {
  if (t.spec.kind === "burn") return burnExpectedMs(t.spec.burn);
  if (t.spec.kind === "dcgm") return dcgmExpectedMs(t.spec.dcgm);
  return undefined;
}

export function expectedTestTime(t: PlannedTest): ExpectedTime {
  const own = kindEstimate(t);
  const one = own && own.ms <= t.timeoutMs ? own : { ms: t.timeoutMs, basis: `estimated from the timeout (${fmtMs(t.timeoutMs)}), an upper bound` };
  const iso = t.isolation;
  // `onFailure: isolate` runs nothing more unless the whole-cluster run fails
  if (!iso || iso.onFailure || !iso.planned) return one;
  const rounds = iso.planned.rounds;
  return { ms: one.ms * rounds, basis: `${one.basis}, × ${rounds} round(s) of pattern ${iso.pattern}` };
}

export interface ExpectedPlanTime {
  tests: Array<{ name: string } & ExpectedTime>;
  total: ExpectedTime;
}

export function expectedPlanTime(plan: Plan): ExpectedPlanTime {
  const tests = plan.tests.map((t) => ({ name: t.name, ...expectedTestTime(t) }));
  const sum = tests.reduce((a, t) => a + t.ms, 0);
  // a measured total is the built-in suite's: a suite file of the same name may time other tests
  const measured = plan.suite.path === `builtin:${plan.suite.name}.yaml` ? measuredTime(plan.suite.name, tests.length) : undefined;
  const total = measured ? { ms: measured.wallMs, basis: `measured: ${measured.source}` } : { ms: sum, basis: `estimated: the sum of the ${tests.length} tests' estimates` };
  return { tests, total };
}

/** undefined when the plan fits; else the one-line refusal naming the tests to drop, longest first */
export function budgetRefusal(command: string, suite: string, expected: ExpectedPlanTime, budgetMs: number): string | undefined {
  const over = expected.total.ms - budgetMs;
  if (over <= 0) return undefined;
  const longest = [...expected.tests].sort((a, b) => b.ms - a.ms);
  const drop: typeof longest = [];
  let saved = 0;
  for (const t of longest) {
    if (saved >= over) break;
    drop.push(t);
    saved += t.ms;
  }
  // a measured total is the whole suite's: what dropping one test would save is not measured, and its
  // estimate (often the timeout) says nothing about the measured figure
  const what = expected.total.basis.startsWith("measured")
    ? "raise --budget (only the whole suite's time is measured, so what dropping a test saves is not known)"
    : saved >= over && drop.length < longest.length
      ? `drop ${drop.map((t) => `${t.name} (${fmtMs(t.ms)})`).join(", ")}`
      : "dropping tests cannot bring it under: raise --budget";
  return `gpucheck: ${command}: suite ${suite} is expected to take ${fmtMs(expected.total.ms)} (${expected.total.basis}), over --budget ${fmtMs(budgetMs)} by ${fmtMs(over)}; to fit, ${what}`;
}

export function budgetFits(expected: ExpectedPlanTime, budgetMs: number): string {
  return `expected total ${fmtMs(expected.total.ms)} fits --budget ${fmtMs(budgetMs)} with ${fmtMs(budgetMs - expected.total.ms)} to spare`;
}

/** `--budget` of plan and suite: throws the refusal (exit 2) before anything runs; else the line saying the margin */
export function checkBudget(command: string, plan: Plan, budget: string): string {
  const parsed = parseDuration(budget);
  if (!parsed.ok || parsed.value <= 0) throw new SuiteError(`gpucheck: ${command}: --budget ${JSON.stringify(budget)}: ${parsed.ok ? "must be above 0" : parsed.reason}`);
  const expected = expectedPlanTime(plan);
  const refusal = budgetRefusal(command, plan.suite.name, expected, parsed.value);
  if (refusal) throw new SuiteError(refusal);
  return budgetFits(expected, parsed.value);
}
