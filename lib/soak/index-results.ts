// The soak's own results.json: its index. It holds, per test, one summary unit per round (its verdict,
// the checks that failed, where the round's own directory and results are) and one "trend" test whose
// units are the nodes and whose checks are each part's trend. Every round's details stay in that
// round's directory (rounds/NNN/), so the index grows with the parts, not with rounds × measurements;
// and because it is an ordinary results.json, junit.xml, report.html, ctrf.json and the certificate
// come from the code every run uses, and the certificate covers each round through its sha256 here.
import { compressHostlist } from "../core/hostlist.ts";
import { partLabel } from "../core/parts.ts";
import type { MetricCheck, Outcome, ResultsFile, TestResult, UnitResult } from "../core/types.ts";
import { aggregateOutcome, judgeRun } from "../assess/judge.ts";
import { FLEET_UNITS } from "../report/fleet.ts";
import { TREND_SERIES_PREFIX } from "../report/test-plots.ts";
import type { RoundTestSummary, SoakRound, SoakState } from "./state.ts";
import type { Trend } from "./trend.ts";

const plural = (n: number, w: string) => `${n} ${w}${n === 1 ? "" : "s"}`;

/** A round's tests summed up as the round ends (kept in soak.json): what the index lists of it. */
export function roundSummaries(round: SoakRound, results: ResultsFile | null): RoundTestSummary[] {
  return (results?.tests ?? []).map((t) => ({
    name: t.name,
    kind: t.kind,
    nodes: t.nodes,
    gpusPerNode: t.gpusPerNode,
    worldSize: t.worldSize,
    expect: t.expect,
    headline: t.headline,
    unit: roundUnit(round, t),
  }));
}

export function soakIndex(state: SoakState, trends: Trend[], opts: { ended: boolean; endedAt: string | null; version: string }): ResultsFile {
  const complete = state.history.filter((r) => r.complete).length;
  const finished = opts.ended && complete >= state.rounds;
  const names: RoundTestSummary[] = [];
  for (const r of state.history) for (const t of r.tests ?? []) if (!names.some((n) => n.name === t.name)) names.push(t);

  const tests: TestResult[] = [];
  for (const test of names) {
    const units: UnitResult[] = state.history.map((r) => r.tests?.find((t) => t.name === test.name)?.unit ?? absentUnit(r));
    // rounds still to come are written ahead, unfinished: a soak cut short never reads green
    for (let i = complete; i < state.rounds && !finished; i++) units.push(pendingUnit(i + 1, state.rounds));
    const { unit: _, ...identity } = test;
    tests.push({ ...identity, perNode: false, units, outcome: aggregateOutcome(units.map((u) => u.verdict.outcome)) });
    const own = trends.filter((t) => t.test === test.name);
    if (own.length) tests.push(trendTest(test, own, state));
  }
  const stopped = finished ? undefined : `the soak has ${plural(complete, "complete round")} of ${state.rounds}: resume it with gpucheck soak --resume <its directory>`;
  const suite = state.suiteInfo;
  return {
    schemaVersion: 1,
    gpucheck: opts.version,
    suite: suite
      ? {
          ...suite,
          description: `soak of ${state.rounds} rounds${state.everyS ? `, one every ${state.everyS} s` : ", back to back"}${suite.description ? `: ${suite.description}` : ""}`,
        }
      : { name: state.suite, description: "soak: no round wrote results", path: state.suite, sha256: "" },
    platform: state.platform ?? "unknown",
    command: state.command,
    startedAt: state.startedAt,
    endedAt: finished ? opts.endedAt : null,
    complete: finished,
    outcome: finished ? judgeRun(tests) : aggregateOutcome([judgeRun(tests), "unfinished"]),
    tests,
    inventory: state.inventory ?? [],
    ...(stopped ? { stopped } : {}),
  };
}

const resultsAt = (round: SoakRound) => `${round.dir}/results.json${round.resultsSha256 ? ` (sha256 ${round.resultsSha256})` : ""}`;

function absentUnit(round: SoakRound): UnitResult {
  const label = `round ${round.round}`;
  const why = round.complete
    ? `${label} did not run this test (${resultsAt(round)})`
    : `${label} was interrupted (${round.outcome}) before this test: another round ran in its place`;
  return {
    unit: label,
    hosts: [],
    status: "skipped",
    startedAt: round.startedAt,
    endedAt: round.endedAt ?? round.startedAt,
    durationS: 0,
    measurement: null,
    verdict: { outcome: "skipped", reason: why, checks: [] },
    logs: [],
    tail: "",
  };
}

/** One round of one test, summed up: its verdict, its failed checks, and where its details are. */
function roundUnit(round: SoakRound, t: TestResult): UnitResult {
  const label = `round ${round.round}`;
  const at = resultsAt(round);
  const base = { unit: label, startedAt: round.startedAt, endedAt: round.endedAt ?? round.startedAt, logs: [`${round.dir}/results.json`], tail: "" };
  if (!round.complete) {
    // kept, never counted: a later round ran in its place
    return {
      ...base,
      hosts: [...new Set(t.units.flatMap((u) => u.hosts))],
      status: "skipped",
      durationS: 0,
      measurement: null,
      verdict: { outcome: "skipped", reason: `${label} was interrupted (${round.outcome}): what it finished is in ${round.dir}; another round ran in its place`, checks: [] },
    };
  }
  const outcome: Outcome = t.isolation ? t.outcome : aggregateOutcome(t.units.map((u) => u.verdict.outcome));
  const bad = t.units.filter((u) => u.verdict.outcome === "failed" || u.verdict.outcome === "error");
  const hosts = [...new Set(bad.flatMap((u) => u.hosts))];
  const all = [...new Set(t.units.flatMap((u) => u.hosts))];
  const first = bad[0] ?? t.units[0];
  const reason =
    outcome === "passed"
      ? `${label}: passed${all.length ? ` on ${compressHostlist(all)}` : ""} (${at})`
      : `${label}: ${outcome.toUpperCase()}${hosts.length ? ` on ${compressHostlist(hosts)}` : ""}: ${first?.verdict.reason ?? "no unit ran"}${bad.length > 1 ? ` (and ${plural(bad.length - 1, "more unit")})` : ""} (${at})`;
  const starts = t.units.map((u) => Date.parse(u.startedAt)).filter(Number.isFinite);
  const ends = t.units.map((u) => Date.parse(u.endedAt)).filter(Number.isFinite);
  const one = t.units.length === 1 ? t.units[0]!.measurement : null;
  return {
    ...base,
    hosts,
    status: outcome === "passed" || outcome === "failed" ? "completed" : outcome === "skipped" ? "skipped" : "failed",
    ...(starts.length ? { startedAt: new Date(Math.min(...starts)).toISOString(), endedAt: new Date(Math.max(...ends)).toISOString() } : {}),
    durationS: t.units.reduce((m, u) => Math.max(m, u.durationS), 0),
    // the round's headline figure, for the tables (a test of one unit: that unit's)
    measurement: one ? { metrics: { [t.headline.metric]: one.metrics[t.headline.metric] ?? null } } : null,
    // only what failed comes along: every check of every round is in that round's results.json
    verdict: { outcome, reason, checks: bad.flatMap((u) => u.verdict.checks.filter((c) => !c.ok)) },
  };
}

function pendingUnit(n: number, of: number): UnitResult {
  const never = new Date(0).toISOString();
  return {
    unit: `round ${n}`,
    hosts: [],
    status: "unfinished",
    startedAt: never,
    endedAt: never,
    durationS: 0,
    measurement: null,
    verdict: { outcome: "unfinished", reason: `round ${n} of ${of} has not run yet: the soak is not finished`, checks: [] },
    logs: [],
    tail: "",
  };
}

/** A test's trends as a test of their own: one unit per node, one check per part and metric. */
function trendTest(test: RoundTestSummary, trends: Trend[], state: SoakState): TestResult {
  const byNode = new Map<string, Trend[]>();
  for (const t of trends) byNode.set(t.node, [...(byNode.get(t.node) ?? []), t]);
  const small = byNode.size <= FLEET_UNITS;
  const units: UnitResult[] = [...byNode].map(([node, ts]) => {
    // at fleet size a node's passing trends are counted, not listed (series.json keeps every value)
    const checks: MetricCheck[] = ts.filter((t) => small || t.verdict !== "passed").map((t) => trendCheck(t, state.maxDrift));
    const outcome = aggregateOutcome(ts.map((t) => t.verdict));
    const bad = checks.filter((c) => !c.ok);
    // each part's series for report.html's plots; at fleet size only the parts that did not pass (the
    // others' values are in the rounds), so that the index stays readable at 1,000 nodes
    const series: Record<string, Array<{ x: number; y: number }>> = {};
    for (const t of ts)
      if (small || t.verdict !== "passed")
        series[`${TREND_SERIES_PREFIX}${t.metric}:${t.part ? partLabel(t.part) : node}`] = t.rounds.flatMap((r, i) =>
          t.values[i] === null ? [] : [{ x: r, y: t.values[i] as number }],
        );
    return {
      unit: node,
      hosts: [node],
      status: "completed",
      startedAt: state.startedAt,
      endedAt: state.startedAt,
      durationS: 0,
      measurement: { metrics: {}, ...(Object.keys(series).length ? { series } : {}) },
      verdict: {
        outcome,
        reason: bad.length
          ? bad.map((c) => c.message).join("; ")
          : `${plural(ts.length, "trend")} over ${plural(ts[0]!.rounds.length, "round")}, each within its limit${small ? "" : " (listed in series.json)"}`,
        checks,
      },
      logs: [],
      tail: "",
    };
  });
  return {
    name: `${test.name} trend`,
    kind: test.kind,
    perNode: true,
    nodes: units.length,
    gpusPerNode: test.gpusPerNode,
    worldSize: test.worldSize,
    expect: [],
    headline: test.headline,
    units,
    outcome: aggregateOutcome(units.map((u) => u.verdict.outcome)),
  };
}

function trendCheck(t: Trend, maxDrift: number): MetricCheck {
  const counter = t.unit === "count" && t.better === "lower";
  const ref = t.reference ?? 0;
  const expected = counter ? ref : t.better === "higher" ? ref * (1 - maxDrift) : ref * (1 + maxDrift);
  const pct = Math.round(maxDrift * 1000) / 10;
  const expectation = counter ? "no rise over the soak" : `${t.better === "higher" ? `≥ ${100 - pct}` : `≤ ${100 + pct}`} % of its first rounds`;
  return {
    metric: t.metric,
    expectation,
    measured: t.end,
    expected,
    unit: t.unit,
    ok: t.verdict === "passed",
    message: t.message,
    ...(t.part ? { part: t.part } : {}),
  };
}
