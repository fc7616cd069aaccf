// How long a plan is expected to take, per test and in total, and whether it fits a --budget. A test's
// own kind estimates its work where its sizes and the suite's floors say (lib/kinds/<kind>/time.ts), and
// each launch adds the start-up derived from gpu-1x's measured wall; otherwise its timeout is the upper bound,
// and the plan says why. An isolating pattern runs one such launch per round of its first pass.
import { SuiteError } from "../core/errors.ts";
import { formatDuration } from "../core/quantity.ts";
import { parseDuration } from "../core/units.ts";
import type { Plan, PlannedTest } from "../core/types.ts";
import { burnExpectedMs } from "../kinds/burn/time.ts";
import { collectiveExpected } from "../kinds/collective/time.ts";
import { dcgmExpectedMs } from "../kinds/dcgm/time.ts";
import { gemmExpected } from "../kinds/gemm/time.ts";
import { inventoryExpected } from "../kinds/inventory/time.ts";
import { membwExpected } from "../kinds/membw/time.ts";
import { nicLoopbackExpected } from "../kinds/nic-loopback/time.ts";
import { nvlinkExpected } from "../kinds/nvlink/time.ts";
import { pcieExpected } from "../kinds/pcie/time.ts";
import { storageExpected } from "../kinds/storage/time.ts";
import { trainExpected } from "../kinds/train/time.ts";
import type { EstimateContext, KindEstimate } from "../kinds/time-basis.ts";
import { LAUNCH_STARTUP_MS, LAUNCH_STARTUP_SOURCE, measuredTime } from "./measured-times.ts";

export interface ExpectedTime {
  ms: number;
  /** "estimated from …" or "measured: BENCHMARKS.md …" */
  basis: string;
}

export function fmtMs(ms: number): string {
  const s = Math.round(ms / 1000);
  return s < 60 ? `${s}s` : formatDuration(s);
}

/** a kind's estimate of the test's own work; undefined for a kind that has none (fabric, nic, …) */
function kindEstimate(t: PlannedTest): KindEstimate | undefined {
  const s = t.spec;
  const ctx: EstimateContext = { expect: s.expect ?? t.expect ?? [], worldSize: t.worldSize, gpusPerNode: t.gpusPerNode };
  if (s.kind === "burn") return burnExpectedMs(s.burn);
  if (s.kind === "dcgm") return dcgmExpectedMs(s.dcgm);
  if (s.kind === "collective") return collectiveExpected(s.collective, ctx);
  if (s.kind === "train") return trainExpected(s.train, ctx);
  if (s.kind === "membw") return membwExpected(s.membw, ctx);
  if (s.kind === "pcie") return pcieExpected(s.pcie, ctx);
  if (s.kind === "gemm") return gemmExpected(s.gemm, ctx);
  if (s.kind === "nvlink") return nvlinkExpected(s.nvlink, ctx);
  if (s.kind === "nic-loopback") return nicLoopbackExpected(s["nic-loopback"], ctx);
  if (s.kind === "storage") return storageExpected(s.storage, ctx);
  if (s.kind === "inventory") return inventoryExpected();
  return undefined;
}

/** the timeout as the upper bound, with why the kind could not say less */
const upperBound = (t: PlannedTest, why?: string): ExpectedTime => ({
  ms: t.timeoutMs,
  basis: `estimated from the timeout (${fmtMs(t.timeoutMs)}), an upper bound${why ? `: ${why}` : ""}`,
});

/** one launch: the kind's estimate of its work plus the start-up, or the timeout */
function oneLaunch(t: PlannedTest): ExpectedTime {
  const own = kindEstimate(t);
  if (!own) return upperBound(t);
  if ("why" in own) return upperBound(t, own.why);
  const ms = own.ms + LAUNCH_STARTUP_MS;
  if (ms > t.timeoutMs) return upperBound(t, `the estimate (${fmtMs(ms)}) is over it`);
  return { ms, basis: `${own.basis}, plus ${fmtMs(LAUNCH_STARTUP_MS)} ${LAUNCH_STARTUP_SOURCE}` };
}

/** `window`: the per-node units the platform runs at once (Plan.perNodeWindow); more take turns, each a launch */
export function expectedTestTime(t: PlannedTest, window?: number): ExpectedTime {
  if (t.notRunnable) return { ms: 0, basis: "not run on this platform: recorded as an error" };
  const one = oneLaunch(t);
  const iso = t.isolation;
  // as lib/execute/run-test.ts turnsOf: 1,000 hosts, 64 at a time, are 16 turns
  if (t.perNode && !iso && window && t.units.length > window) {
    const turns = Math.ceil(t.units.length / window);
    return { ms: one.ms * turns, basis: `${one.basis}, × ${turns} turns of ${window} nodes at once (maxParallel)` };
  }
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
  const tests = plan.tests.map((t) => ({ name: t.name, ...expectedTestTime(t, plan.perNodeWindow) }));
  const sum = tests.reduce((a, t) => a + t.ms, 0);
  // a measured total is the built-in suite's, launching the very commands that were timed: a suite file
  // of the same name, --only, or a test changed since (another gemm sweep) did other work
  const commands = plan.tests.map((t) => t.launch.args.join(" "));
  const m = plan.suite.path === `builtin:${plan.suite.name}.yaml` ? measuredTime(plan.suite.name, commands) : undefined;
  const other = m && !m.same ? `; the measured ${fmtMs(m.row.wallMs)} (BENCHMARKS.md) launched other commands, so it is not used` : "";
  const total = m?.same
    ? { ms: m.row.wallMs, basis: `measured: ${m.row.source}` }
    : { ms: sum, basis: tests.length === 1 ? `estimated: its one test's estimate${other}` : `estimated: the sum of the ${tests.length} tests' estimates${other}` };
  return { tests, total };
}

/** a built-in suite's quick profile (`h100-8x-quick`) and its expected time, offered when the full suite does not fit */
export interface QuickProfile {
  name: string;
  expected: ExpectedPlanTime;
}

/** undefined when the plan fits; else the one-line refusal naming the tests to drop, longest first, and the quick profile when it fits */
export function budgetRefusal(command: string, suite: string, expected: ExpectedPlanTime, budgetMs: number, quick?: QuickProfile): string | undefined {
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
  const q =
    quick && quick.expected.total.ms <= budgetMs
      ? `; or run its quick profile ${quick.name}, expected ${fmtMs(quick.expected.total.ms)} (${quick.expected.total.basis}), which fits`
      : "";
  return `gpucheck: ${command}: suite ${suite} is expected to take ${fmtMs(expected.total.ms)} (${expected.total.basis}), over --budget ${fmtMs(budgetMs)} by ${fmtMs(over)}; to fit, ${what}${q}`;
}

export function budgetFits(expected: ExpectedPlanTime, budgetMs: number): string {
  return `expected total ${fmtMs(expected.total.ms)} fits --budget ${fmtMs(budgetMs)} with ${fmtMs(budgetMs - expected.total.ms)} to spare`;
}

/** `--budget` of plan and suite: throws the refusal (exit 2) before anything runs; else the line saying the margin. `quick`: the suite's quick profile, planned alike */
export function checkBudget(command: string, plan: Plan, budget: string, quick?: Plan): string {
  const parsed = parseDuration(budget);
  if (!parsed.ok || parsed.value <= 0) throw new SuiteError(`gpucheck: ${command}: --budget ${JSON.stringify(budget)}: ${parsed.ok ? "must be above 0" : parsed.reason}`);
  const expected = expectedPlanTime(plan);
  const profile = quick && { name: quick.suite.name, expected: expectedPlanTime(quick) };
  const refusal = budgetRefusal(command, plan.suite.name, expected, parsed.value, profile);
  if (refusal) throw new SuiteError(refusal);
  return budgetFits(expected, parsed.value);
}
