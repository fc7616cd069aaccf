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
import { TREND_SERIES_PREFIX } from "../report/test-plots.ts";
import type { SoakRound, SoakState } from "./state.ts";
import type { Trend } from "./trend.ts";

export interface RoundRead {
  round: SoakRound;
  /** the round's results.json; null when the round left none (killed before its first write) */
  results: ResultsFile | null;
}

const plural = (n: number, w: string) => `${n} ${w}${n === 1 ? "" : "s"}`;

export function soakIndex(state: SoakState, rounds: RoundRead[], trends: Trend[], opts: { ended: boolean; endedAt: string | null; version: string }): ResultsFile {
  const template = rounds.find((r) => r.results)?.results ?? null;
  const complete = rounds.filter((r) => r.round.complete).length;
  const finished = opts.ended && complete >= state.rounds;
  const names: Array<{ name: string; test: TestResult }> = [];
  for (const r of rounds) for (const t of r.results?.tests ?? []) if (!names.some((n) => n.name === t.name)) names.push({ name: t.name, test: t });

  const tests: TestResult[] = [];
  for (const { name, test } of names) {
    const units: UnitResult[] = rounds.map((r) =>
      roundUnit(
        r,
        r.results?.tests.find((t) => t.name === name),
      ),
    );
    // rounds still to come are written ahead, unfinished: a soak cut short never reads green
    for (let i = complete; i < state.rounds && !finished; i++) units.push(pendingUnit(i + 1, state.rounds));
    tests.push({
      name,
      kind: test.kind,
      perNode: false,
      nodes: test.nodes,
      gpusPerNode: test.gpusPerNode,
      worldSize: test.worldSize,
      expect: test.expect,
      headline: test.headline,
      units,
      outcome: aggregateOutcome(units.map((u) => u.verdict.outcome)),
    });
    const own = trends.filter((t) => t.test === name);
    if (own.length) tests.push(trendTest(name, test, own, state));
  }
  const first = rounds[0]?.round.startedAt ?? state.startedAt;
  const stopped = finished ? undefined : `the soak has ${plural(complete, "complete round")} of ${state.rounds}: resume it with gpucheck soak --resume <its directory>`;
  return {
    schemaVersion: 1,
    gpucheck: opts.version,
    suite: template
      ? {
          ...template.suite,
          description: `soak of ${state.rounds} rounds${state.everyS ? `, one every ${state.everyS} s` : ", back to back"}: ${template.suite.description}`.trim(),
        }
      : { name: state.suite, description: "soak: no round wrote results", path: state.suite, sha256: "" },
    platform: template?.platform ?? "unknown",
    command: state.command,
    startedAt: state.startedAt || first,
    endedAt: finished ? opts.endedAt : null,
    complete: finished,
    outcome: finished ? judgeRun(tests) : aggregateOutcome([judgeRun(tests), "unfinished"]),
    tests,
    inventory: [...rounds].reverse().find((r) => r.results?.inventory.length)?.results?.inventory ?? [],
    ...(stopped ? { stopped } : {}),
  };
}

/** One round of one test, summed up: its verdict, its failed checks, and where its details are. */
function roundUnit(r: RoundRead, t: TestResult | undefined): UnitResult {
  const { round } = r;
  const label = `round ${round.round}`;
  const at = `${round.dir}/results.json${round.resultsSha256 ? ` (sha256 ${round.resultsSha256})` : ""}`;
  const base = { unit: label, startedAt: round.startedAt, endedAt: round.endedAt ?? round.startedAt, measurement: null, logs: [`${round.dir}/results.json`], tail: "" };
  if (!round.complete) {
    // kept, never counted: a later round ran in its place
    return {
      ...base,
      hosts: t?.units.flatMap((u) => u.hosts) ?? [],
      status: "skipped",
      durationS: 0,
      verdict: { outcome: "skipped", reason: `${label} was interrupted (${round.outcome}): what it finished is in ${round.dir}; another round ran in its place`, checks: [] },
    };
  }
  if (!t) return { ...base, hosts: [], status: "skipped", durationS: 0, verdict: { outcome: "skipped", reason: `${label} did not run this test (${at})`, checks: [] } };
  const outcomes = t.units.map((u) => u.verdict.outcome);
  const outcome: Outcome = t.isolation ? t.outcome : aggregateOutcome(outcomes);
  const bad = t.units.filter((u) => u.verdict.outcome === "failed" || u.verdict.outcome === "error");
  const hosts = [...new Set(bad.flatMap((u) => u.hosts))];
  const all = [...new Set(t.units.flatMap((u) => u.hosts))];
  const reason =
    outcome === "passed"
      ? `${label}: passed on ${compressHostlist(all)} (${at})`
      : `${label}: ${outcome.toUpperCase()}${bad.length ? ` on ${compressHostlist(hosts)}: ${bad[0]!.verdict.reason}${bad.length > 1 ? ` (and ${plural(bad.length - 1, "more unit")})` : ""}` : `: ${t.units[0]?.verdict.reason ?? "no unit ran"}`} (${at})`;
  const starts = t.units.map((u) => Date.parse(u.startedAt)).filter(Number.isFinite);
  const ends = t.units.map((u) => Date.parse(u.endedAt)).filter(Number.isFinite);
  return {
    ...base,
    hosts,
    status: outcome === "passed" || outcome === "failed" ? "completed" : outcome === "skipped" ? "skipped" : "failed",
    ...(starts.length ? { startedAt: new Date(Math.min(...starts)).toISOString(), endedAt: new Date(Math.max(...ends)).toISOString() } : {}),
    durationS: t.units.reduce((m, u) => Math.max(m, u.durationS), 0),
    // the round's headline figure, for the tables (a test of one unit: that unit's)
    measurement: t.units.length === 1 && t.units[0]!.measurement ? { metrics: { [t.headline.metric]: t.units[0]!.measurement.metrics[t.headline.metric] ?? null } } : null,
    // only what failed comes along: every check of every round is in that round's results.json
    verdict: { outcome, reason, checks: bad.flatMap((u) => u.verdict.checks.filter((c) => !c.ok)) },
  };
}

function pendingUnit(n: number, of: number): UnitResult {
  const now = new Date(0).toISOString();
  return {
    unit: `round ${n}`,
    hosts: [],
    status: "unfinished",
    startedAt: now,
    endedAt: now,
    durationS: 0,
    measurement: null,
    verdict: { outcome: "unfinished", reason: `round ${n} of ${of} has not run yet: the soak is not finished`, checks: [] },
    logs: [],
    tail: "",
  };
}

/** A test's trends as a test of their own: one unit per node, one check per part and metric. */
function trendTest(name: string, test: TestResult, trends: Trend[], state: SoakState): TestResult {
  const byNode = new Map<string, Trend[]>();
  for (const t of trends) byNode.set(t.node, [...(byNode.get(t.node) ?? []), t]);
  const units: UnitResult[] = [...byNode].map(([node, ts]) => {
    const checks: MetricCheck[] = ts.map((t) => trendCheck(t, state.maxDrift));
    const outcome = aggregateOutcome(ts.map((t) => t.verdict));
    const bad = checks.filter((c) => !c.ok);
    const series: Record<string, Array<{ x: number; y: number }>> = {};
    for (const t of ts)
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
      measurement: { metrics: {}, series },
      verdict: {
        outcome,
        reason: bad.length ? bad.map((c) => c.message).join("; ") : `${plural(ts.length, "trend")} over ${plural(ts[0]!.rounds.length, "round")}, each within its limit`,
        checks,
      },
      logs: [],
      tail: "",
    };
  });
  return {
    name: `${name} trend`,
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
  const expectation = counter
    ? "no rise over the soak"
    : `${t.better === "higher" ? "≥" : "≤"} ${t.better === "higher" ? 100 - maxDrift * 100 : 100 + maxDrift * 100} % of its first rounds`;
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
