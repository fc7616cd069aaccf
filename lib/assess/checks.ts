// One expectation against one measurement → checks whose messages carry measured, expected, unit and
// margin, so a JUnit failure can be read without opening results.json.
import type { Check, Expectation, Measurement, MetricCheck, TransportCheck, TransportRule } from "../core/types.ts";
import { KINDS } from "../kinds/mod.ts";
import type { AnyKind } from "../core/kind.ts";
import { TELEMETRY_METRICS } from "../core/metrics.ts";
import { connectionCounts, usedTransport } from "../parsers/nccl-info.ts";
import { ALGORITHM_TOKENS, algorithmUse } from "../parsers/nccl-tuning.ts";
import { attachUnit, formatBytes, formatMargin, formatNumber, withUnit } from "../core/quantity.ts";

export interface Looked {
  value: number | null;
  /** the message size the value belongs to, for per-size metrics */
  at?: number;
  /** why value is null, when there is more to say than "not measured" */
  why?: string;
}

/**
 * A metric's value: per-size metrics at `at` (default: the largest size measured), others from the
 * scalar metrics. null when the output did not contain it.
 */
export function lookupMetric(m: Measurement, metric: string, at?: number): Looked {
  const rows = m.bySize?.[metric];
  if (rows && rows.length > 0) {
    const size = at ?? Math.max(...rows.map((r) => r[0]));
    const row = rows.find((r) => r[0] === size);
    if (!row) {
      const sizes = rows.map((r) => r[0]).sort((a, b) => a - b);
      const range = `${formatBytes(sizes[0])} to ${formatBytes(sizes[sizes.length - 1])}`;
      return { value: null, at: size, why: `no ${metric} row at ${formatBytes(size)} (sizes measured: ${range})` };
    }
    return { value: row[1], at: size };
  }
  if (at !== undefined) return { value: null, at, why: `no ${metric} per message size in the output` };
  const v = m.metrics[metric];
  if (typeof v === "number" && Number.isFinite(v)) return { value: v };
  const reason = m.unmeasured?.[metric];
  return reason ? { value: null, why: `${metric} unmeasured: ${reason}` } : { value: null };
}

export interface ExpectationResult {
  checks: Check[];
  /** reasons the expectation could not be judged at all (no baseline): they make the verdict an error */
  problems: string[];
}

export function checkExpectation(e: Expectation, m: Measurement, baseline: Measurement | null | undefined): ExpectationResult {
  if (e.transport) return { checks: [checkTransport(e.text, e.transport, m)], problems: [] };
  const got = lookupMetric(m, e.metric, e.at);
  const where = got.at !== undefined ? ` at ${formatBytes(got.at)}` : "";
  const bounds: Array<{ op: Op; expected: number; note?: string }> = [];
  const problems: string[] = [];

  if (e.min !== undefined && e.min === e.max) bounds.push({ op: "=", expected: e.min });
  else {
    if (e.min !== undefined) bounds.push({ op: "≥", expected: e.min });
    if (e.max !== undefined) bounds.push({ op: "≤", expected: e.max });
  }
  if (e.baselineRatio !== undefined) {
    const rel = relativeBound(e, got.at, baseline, where);
    if (typeof rel === "string") problems.push(rel);
    else bounds.push(rel);
  }

  const checks = bounds.map(({ op, expected, note }): MetricCheck => {
    const base = { metric: e.metric, expectation: e.text, measured: got.value, expected, unit: e.unit };
    const want = `${op} ${withUnit(expected, e.unit)}${note ?? ""}`;
    if (got.value === null) {
      const why = got.why ?? `${e.metric}${where} not measured`;
      return { ...base, ok: false, message: `${why} (expected ${want})` };
    }
    const ok = holds(op, got.value, expected);
    const rel = ok ? op : NEGATION[op];
    // exactly on the threshold there is no margin to state ("wrong 0 = 0 expected")
    const margin = got.value === expected ? "" : ` (${formatMargin(got.value, expected, e.unit)})`;
    const value = attachUnit(shownText(got.value, expected), e.unit);
    // a missed check names the parts behind the number (which port is down, which GPU is short of links)
    const parts = !ok && m.details?.[e.metric] ? `: ${m.details[e.metric]}` : "";
    const message = `${e.metric} ${value}${where} ${rel} ${withUnit(expected, e.unit)} expected${note ?? ""}${margin}${parts}`;
    return { ...base, ok, message };
  });
  return { checks, problems };
}

/**
 * `transport:` against NCCL's account: a required transport no connection used, or a forbidden one
 * that some connection used, fails; no account at all is an error naming why (measured null). An
 * algorithm (NVLS, CollNet) is judged by what NCCL chose for the measured sizes (its tuning lines),
 * never by its init lines: a collective can run Ring beside an NVLS that was set up.
 */
export function checkTransport(text: string, rule: TransportRule, m: Measurement): TransportCheck {
  const base = { metric: "transport" as const, expectation: text, expected: rule, unit: "" as const };
  const s = m.transport;
  const why = m.unmeasured?.transport;
  const unmeasured = (reason: string): TransportCheck => ({ ...base, measured: null, ok: false, message: `transport unmeasured: ${reason} (${ruleText(rule)})` });
  if (!s || why) return unmeasured(why ?? "the output holds no NCCL account of its connections");
  const sizes = (m.bySize?.busbw ?? []).filter(([, v]) => v !== null).map(([size]) => size);
  const algos = [...rule.require.map((t) => ["require", t] as const), ...rule.forbid.map((t) => ["forbid", t] as const)]
    .filter(([, t]) => ALGORITHM_TOKENS[t])
    .map(([how, t]) => algorithmUse(s, t, how, sizes));
  const cannot = algos.flatMap((a) => (a.unmeasured ? [a.unmeasured] : []));
  if (cannot.length) return unmeasured(cannot.join("; "));
  const used = Object.keys(s.transports).filter((k) => s.transports[k] > 0);
  const isAlgo = (t: string) => ALGORITHM_TOKENS[t] !== undefined;
  const missing = rule.require.filter((t) => !isAlgo(t) && !usedTransport(s, t));
  const present = rule.forbid.filter((t) => !isAlgo(t) && usedTransport(s, t));
  const algoFailures = algos.flatMap((a) => (a.failure ? [a.failure] : []));
  const shown = used.filter((k) => k !== "GDRDMA").join(", ") || "nothing";
  const chosen = [...new Set(algos.flatMap((a) => a.chosen))];
  const chose = chosen.length ? `; NCCL chose ${chosen.join(", ")}` : "";
  if (missing.length === 0 && present.length === 0 && algoFailures.length === 0) {
    return { ...base, measured: used, ok: true, message: `transport: ${used.join(", ")} used${chose} (${ruleText(rule)})` };
  }
  if (missing.length === 0 && present.length === 0) return { ...base, measured: used, ok: false, message: `transport: ${algoFailures.join("; ")}` };
  const wrong = [missing.length ? `${missing.join(", ")} required` : "", present.length ? `${present.join(", ")} forbidden` : ""].filter(Boolean).join(", ");
  const gdrOff = missing.includes("GDRDMA") && s.gdrDisabled.length ? `; GPUDirect RDMA disabled for ${s.gdrDisabled.join("; ")}` : "";
  const alsoAlgo = algoFailures.length ? `; ${algoFailures.join("; ")}` : "";
  return { ...base, measured: used, ok: false, message: `transport: ${shown} used, ${wrong} (connections: ${connectionCounts(s)}${gdrOff})${alsoAlgo}` };
}

function ruleText(rule: TransportRule): string {
  return [rule.require.length ? `requires ${rule.require.join(", ")}` : "", rule.forbid.length ? `forbids ${rule.forbid.join(", ")}` : ""].filter(Boolean).join(", ");
}

/** A check of `transport:` rather than of a number. */
export function isTransportCheck(c: Check): c is TransportCheck {
  return c.metric === "transport" && !(typeof c.expected === "number");
}

type Op = "≥" | "≤" | "=";
const NEGATION: Record<Op, string> = { "≥": "<", "≤": ">", "=": "≠" };

function holds(op: Op, v: number, t: number): boolean {
  return op === "≥" ? v >= t : op === "≤" ? v <= t : v === t;
}

/** ratio × the baseline's value of the same metric at the same size; higher- or lower-is-better per metric. */
function relativeBound(e: Expectation, at: number | undefined, baseline: Measurement | null | undefined, where: string) {
  const ratio = e.baselineRatio as number;
  if (baseline === undefined) {
    return `${e.metric}: "${e.text}" is relative to a baseline but none was given (pass --baseline <results.json>)`;
  }
  if (baseline === null) return `${e.metric}: the baseline run has no result for this test and unit to compare with`;
  const ref = lookupMetric(baseline, e.metric, at);
  if (ref.value === null) return `${e.metric}: the baseline has no ${e.metric}${where} to compare with`;
  // "95% of baseline" allows 5% worse either way: a lower-is-better metric may grow to baseline / 0.95
  if (betterOf(e.metric, e.unit) === "lower") {
    return { op: "≤" as Op, expected: Number((ref.value / ratio).toPrecision(12)), note: ` (baseline ${withUnit(ref.value, e.unit)} / ${formatNumber(ratio * 100)}%)` };
  }
  return { op: "≥" as Op, expected: Number((ratio * ref.value).toPrecision(12)), note: ` (${formatNumber(ratio * 100)}% of baseline ${withUnit(ref.value, e.unit)})` };
}

/** Enough digits that a value just under its threshold never prints as equal to it ("400.0 < 400"). */
function shownText(v: number, threshold: number): string {
  const plain = formatNumber(v);
  if (v === threshold || plain !== formatNumber(threshold)) return plain;
  return String(Number(v.toPrecision(6)));
}

/** nccl-tests and the workload count wrong elements; any is a failed correctness check, thresholded or not. */
export function implicitChecks(expect: Expectation[], m: Measurement): MetricCheck[] {
  if (expect.some((e) => e.metric === "wrong")) return [];
  const wrong = m.metrics.wrong;
  if (typeof wrong !== "number") return [];
  const ok = wrong === 0;
  const message = ok ? "wrong 0 = 0 expected (correctness check)" : `wrong ${formatNumber(wrong)} ≠ 0 expected (${formatMargin(wrong, 0, "count")}; correctness check)`;
  return [{ metric: "wrong", expectation: "wrong = 0 (always checked)", measured: wrong, expected: 0, unit: "count", ok, message }];
}

/**
 * Which way is better, for relative thresholds, from the metric catalogue. A metric it does not
 * know (a results.json from a newer gpucheck) falls back on its unit: times, temperatures, power and
 * counts of bad things are better lower.
 */
function betterOf(metric: string, unit: string): "higher" | "lower" {
  const kinds: AnyKind[] = Object.values(KINDS);
  for (const table of [...kinds.flatMap((k) => [k.metrics, k.componentMetrics ?? {}]), TELEMETRY_METRICS]) {
    if (Object.hasOwn(table, metric)) return table[metric].better;
  }
  return /^(ms|us|µs|s|°C|C|W|count)$/.test(unit) ? "lower" : "higher";
}

/** A check that could not be evaluated (the metric was missing) rather than one that was missed. */
export function isUnjudged(c: Check): boolean {
  return c.measured === null;
}
