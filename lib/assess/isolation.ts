// How a judged unit counts as evidence in an isolation, and an isolation judged again from saved
// units (`gpucheck judge`): the same rounds fed to the same pattern, so the verdict follows the new
// thresholds as far as the run's rounds allow.
import type { AnyKind } from "../core/kind.ts";
import type { Group, GroupResult, GroupStatus, IsolationVerdict } from "../core/isolation.ts";
import type { Expectation, Kind, TestResult, UnitResult } from "../core/types.ts";
import { isolation } from "../isolate/mod.ts";
import { KINDS } from "../kinds/mod.ts";
import { headlineOf, lookupMetric } from "./judge.ts";

/**
 * How a unit counts against its nodes. A rank that crashed or a threshold missed is evidence; a
 * hang cut by the timeout is evidence of its own kind; a host of the group that stopped answering
 * (it answered the preflight, so the jump host's reach is not in doubt) is evidence, which the
 * pattern pins on that host since it fails with every partner; any other launch that never
 * happened, or a metric that could not be read, is not evidence either way.
 */
export function groupStatus(u: UnitResult): GroupStatus {
  if (u.status === "timeout") return "timeout";
  if (u.status === "failed") return "failed";
  if (u.status === "infra" && u.lost?.length && u.lost.every((h) => u.hosts.includes(h))) return "failed";
  if (u.status !== "completed") return "error";
  return u.verdict.outcome === "passed" ? "passed" : u.verdict.outcome === "failed" ? "failed" : "error";
}

export interface Headline {
  metric: string;
  unit: string;
  higher: boolean;
  /** the test's own bound on the headline (min, or max when lower is better): then the relative rule is off */
  floor?: number;
}

/**
 * What an isolation judges a group by: the kind's own headline (its bandwidth), whatever else the
 * test checks. A data check such as `wrong: { max: 0 }` fails its units, which is evidence on its
 * own; it must not become the headline, or a test with no floor on bandwidth would lose the relative
 * rule (issue 26, item 8). The floor is the test's bound on that metric, when it sets one.
 */
export function headlineRule(kind: Kind, expect: Expectation[], params: unknown): Headline {
  const k = KINDS[kind] as AnyKind;
  const own = k.headlineFor?.(params) ?? k.headline;
  const { metric, unit } = own in k.metrics ? { metric: own, unit: expect.find((e) => e.metric === own)?.unit ?? k.metrics[own]!.unit } : headlineOf(kind, expect, params);
  const higher = (KINDS[kind] as AnyKind).metrics[metric]?.better !== "lower";
  const bound = expect.find((e) => e.metric === metric && !e.perComponent && e.at === undefined && (higher ? e.min : e.max) !== undefined);
  const floor = bound ? (higher ? bound.min : bound.max) : undefined;
  return { metric, unit, higher, ...(floor !== undefined && { floor }) };
}

export function asGroup(group: Group, u: UnitResult, h: Headline): GroupResult {
  const value = u.measurement ? lookupMetric(u.measurement, h.metric).value : null;
  return { group, status: groupStatus(u), value, unit: h.unit, higher: h.higher, ...(u.verdict.reason ? { message: u.verdict.reason } : {}) };
}

/** A bad node or a bad pair is a finding; a node never judged (no launch, Ctrl-C) leaves the test unjudged. */
export function isolatedOutcome(v: IsolationVerdict, units: UnitResult[]): TestResult["outcome"] {
  if (v.bad.length || v.badPairs.length) return "failed";
  // a node seen failing that no second pass cleared or confirmed is undecided, never green
  return v.nodes.some((n) => n.verdict === "untested" || n.verdict === "suspect-unconfirmed") || !units.length || !v.complete ? "error" : "passed";
}

/** The name of the group a unit ran: "all" for a whole-cluster run, else after its round ("2.gpu01+gpu07"). */
function groupName(unit: string): string {
  return unit === "all" ? unit : unit.slice(unit.indexOf(".") + 1);
}

function roundOf(unit: string): number {
  return unit === "all" ? 1 : Number(unit.slice(0, unit.indexOf(".")));
}

/**
 * The saved test's isolation fed again with its units as judged now. Where the new verdicts call for
 * a round the run never had, the isolation stops there (incomplete) and the note says so.
 */
export function replayIsolation(saved: TestResult, units: UnitResult[], h: Headline): { isolation: IsolationVerdict; note?: string } | undefined {
  const run = saved.isolation?.run;
  if (!saved.isolation || !run) return undefined;
  const machine = isolation(saved.isolation.pattern, run.hosts, {
    seed: run.seed,
    ...(run.pairs !== undefined && { pairs: run.pairs }),
    ...(run.screen && { groups: run.screen }),
    ...(h.floor !== undefined && { floor: h.floor }),
  });
  const rounds = new Map<number, UnitResult[]>();
  for (const u of units) rounds.set(roundOf(u.unit), [...(rounds.get(roundOf(u.unit)) ?? []), u]);
  const order = [...rounds.keys()].sort((a, b) => a - b);
  let note: string | undefined;
  for (let i = 0, round = machine.next(); round; i++, round = machine.next()) {
    const had = rounds.get(order[i] ?? -1) ?? [];
    const want = round.groups.map((g) => g.name);
    if (want.join(" ") !== had.map((u) => groupName(u.unit)).join(" ")) {
      note = `test "${saved.name}": judged again, the isolation would next run ${round.label} (${want.join(", ")}), which the run ${
        had.length ? `did not have (it ran ${had.map((u) => groupName(u.unit)).join(", ")})` : "never reached"
      }: the isolation stops there, incomplete`;
      break;
    }
    machine.feed(round.groups.map((g, j) => asGroup(g, had[j]!, h)));
  }
  const verdict = machine.verdict();
  return { isolation: { ...verdict, complete: verdict.complete && note === undefined, run }, ...(note && { note }) };
}
