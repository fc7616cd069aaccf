// A per-node metric against the nodes of its test: `busbw: { outlier: { over: fleet } }` in a per-node
// test. The node is the unit; the fleet is every unit of the test, judged only once all reported.
import { withUnit } from "../core/quantity.ts";
import type { Expectation, Measurement, MetricCheck } from "../core/types.ts";
import { fleetOutliers } from "../isolate/mod.ts";
import { lookupMetric } from "./checks.ts";

export function fleetCheck(e: Expectation, m: Measurement, fleet: Array<Measurement | null>): MetricCheck {
  const rule = e.fleet!;
  const values = fleet.map((x, i) => ({ node: String(i), value: x ? lookupMetric(x, e.metric, e.at).value : null }));
  const me = Math.max(0, fleet.indexOf(m));
  const base = { metric: e.metric, expectation: e.text, unit: e.unit };
  const nodes = `${values.length} node${values.length === 1 ? "" : "s"} of the test`;
  const own = values[me]!.value;
  if (own === null) {
    const why = lookupMetric(m, e.metric, e.at).why ?? `${e.metric} not measured`;
    return { ...base, measured: null, expected: rule.ratio ?? rule.k ?? 0, ok: false, message: `${why} (fleet rule over the ${nodes})` };
  }
  const row = fleetOutliers(values, { higher: rule.side === "below", ...(rule.k !== undefined && { k: rule.k }) })[me]!;
  if (row.median === null || row.outlier === null) {
    // fewer than 3 measured nodes: no median worth judging against, and never a pass
    return { ...base, measured: null, expected: rule.ratio ?? rule.k ?? 0, ok: false, message: `${e.metric} fleet rule cannot be judged: ${row.why} (${nodes})` };
  }
  const ratio = row.ratio ?? Number.POSITIVE_INFINITY;
  const outlier = { median: row.median, ratio: Number.isFinite(ratio) ? Number(ratio.toPrecision(6)) : ratio, from: values.map((v) => v.node), mad: row.mad ?? 0 };
  if (rule.ratio !== undefined) {
    const expected = Number((rule.ratio * row.median).toPrecision(12));
    const ok = rule.side === "below" ? own >= expected : own <= expected;
    const rel = ok ? (rule.side === "below" ? "≥" : "≤") : rule.side === "below" ? "<" : ">";
    const message = `${e.metric} ${withUnit(own, e.unit)} is ${ratio.toFixed(3)} × the median ${withUnit(row.median, e.unit)} of the ${nodes} (${rel} ${rule.ratio} expected)`;
    return { ...base, measured: own, expected, ok, message, outlier };
  }
  // row.why starts with the bare value: said once, with its unit
  const why = row.why.slice(row.why.indexOf(" is ") + 1);
  return {
    ...base,
    measured: own,
    expected: rule.k!,
    ok: !row.outlier,
    message: `${e.metric} ${withUnit(own, e.unit)} ${why} (median of the ${nodes}, MAD ${withUnit(row.mad ?? 0, e.unit)})`,
    outlier,
  };
}
