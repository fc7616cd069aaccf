// Per-component thresholds: a suite's `gemm_bf16_tflops: { min: 700 TFLOP/s, outlier: { below: 0.93 } }`
// judges every GPU on its own, so a verdict names the part to replace. An absolute bound is the
// ordinary check on that part's value; `outlier:` compares the part with the median of its peers:
// the other parts of its type in the unit, or every part of the test (`over: fleet`, with the MAD).
import type { ComponentValues, Expectation, Measurement, MetricCheck, PartId, TransportCheck } from "../core/types.ts";
import { partName } from "../core/parts.ts";
import { formatNumber, withUnit } from "../core/quantity.ts";
import { checkExpectation, checkTransport } from "./checks.ts";

/** The checks of one per-component expectation on one unit; `fleet` is every unit's measurement of the test. */
export function componentChecks(e: Expectation, m: Measurement, fleet: Array<Measurement | null>): MetricCheck[] {
  const parts = (m.components ?? []).filter((c) => Object.hasOwn(c.metrics, e.metric));
  if (parts.length === 0) {
    const why = m.unmeasured?.[e.metric] ?? "the output names no part with this metric";
    return [
      {
        metric: e.metric,
        expectation: e.text,
        measured: null,
        expected: e.min ?? e.max ?? e.outlier?.ratio ?? 0,
        unit: e.unit,
        ok: false,
        message: `${e.metric} not measured per component: ${why}`,
      },
    ];
  }
  const checks: MetricCheck[] = [];
  for (const c of parts) {
    checks.push(...boundChecks(e, c));
    if (e.outlier) checks.push(outlierCheck(e, c, e.outlier.over === "fleet" ? fleetParts(e.metric, fleet) : parts));
  }
  return checks;
}

/**
 * `transport:` on a measurement whose parts carry their own NCCL account (a collective's rails): one
 * check per part, so the rail that lost GPUDirect or fell back to sockets is named; null when no part
 * has an account or a reason for its absence (the unit-level check applies).
 */
export function componentTransportChecks(e: Expectation, m: Measurement): TransportCheck[] | null {
  const parts = (m.components ?? []).filter((c) => c.transport || c.unmeasured?.transport);
  if (!e.transport || parts.length === 0) return null;
  return parts.map((c) => {
    const own: Measurement = { metrics: {}, ...(c.transport && { transport: c.transport }), ...(c.unmeasured?.transport && { unmeasured: { transport: c.unmeasured.transport } }) };
    const k = checkTransport(e.text, e.transport!, own);
    return { ...k, message: `${componentName(c)}: ${k.message}`, part: c.part };
  });
}

/** min / max on one part: the unit-level check on the part's own values, its message led by the part's name. */
function boundChecks(e: Expectation, c: ComponentValues): MetricCheck[] {
  if (e.min === undefined && e.max === undefined) return [];
  const own: Measurement = { metrics: c.metrics, ...(c.unmeasured && { unmeasured: c.unmeasured }), ...(c.details && { details: c.details }) };
  const { outlier: _o, perComponent: _p, ...plain } = e;
  return (checkExpectation(plain, own, undefined).checks as MetricCheck[]).map((k) => ({ ...k, message: `${componentName(c)}: ${k.message}`, part: c.part }));
}

/** The part's name, and the tool that measured it where the kind has more than one ("… NIC 0 (mlx5_0) [nccl-p2p]"). */
function componentName(c: ComponentValues): string {
  return c.source ? `${partName(c.part)} [${c.source}]` : partName(c.part);
}

function fleetParts(metric: string, fleet: Array<Measurement | null>): ComponentValues[] {
  return fleet.flatMap((m) => (m?.components ?? []).filter((c) => Object.hasOwn(c.metrics, metric)));
}

const partValue = (c: ComponentValues, metric: string): number | null => {
  const v = c.metrics[metric];
  return typeof v === "number" && Number.isFinite(v) ? v : null;
};

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

/**
 * One part against the median of its peers of the same type: in the unit the others (a part is not
 * its own reference), over the fleet every part of the test, as the MAD is taken over the same set.
 */
function outlierCheck(e: Expectation, c: ComponentValues, pool: ComponentValues[]): MetricCheck {
  const rule = e.outlier!;
  const name = componentName(c);
  const fleet = rule.over === "fleet";
  const base = { metric: e.metric, expectation: e.text, unit: e.unit, part: c.part };
  const want = `${rule.side} ${formatNumber(rule.ratio)} × the median of ${peersText(c.part, fleet)}`;
  const value = partValue(c, e.metric);
  if (value === null) {
    const why = c.unmeasured?.[e.metric] ?? "not measured";
    return { ...base, measured: null, expected: rule.ratio, ok: false, message: `${name}: ${e.metric} unmeasured: ${why} (outlier rule: fails ${want})` };
  }
  const peers = pool.filter((p) => p.part.type === c.part.type && (fleet || p !== c) && partValue(p, e.metric) !== null);
  if (peers.length < (fleet ? 2 : 1)) {
    const n = fleet ? peers.length : peers.length + 1;
    return {
      ...base,
      measured: null,
      expected: rule.ratio,
      ok: false,
      message: `${name}: ${e.metric} outlier rule cannot be judged: ${n} ${c.part.type} part${n === 1 ? "" : "s"} measured ${e.metric} ${fleet ? "in the whole test" : "in this unit"}, at least 2 needed to compare`,
    };
  }
  const values = peers.map((p) => partValue(p, e.metric)!);
  const med = median(values);
  const mad = fleet ? median(values.map((v) => Math.abs(v - med))) : undefined;
  const ratio = med === 0 ? Number.POSITIVE_INFINITY : value / med;
  const expected = Number((rule.ratio * med).toPrecision(12));
  const ok = rule.side === "below" ? value >= expected : value <= expected;
  const from = peers.map((p) => partName(p.part));
  const ratioText = Number.isFinite(ratio) ? ratio.toFixed(3) : "∞";
  const rel = ok ? (rule.side === "below" ? "≥" : "≤") : rule.side === "below" ? "<" : ">";
  const madText = mad !== undefined ? `, MAD ${partAmount(mad, e.unit)}` : "";
  const message =
    `${name}: ${e.metric} ${partAmount(value, e.unit)} is ${ratioText} × the median ${partAmount(med, e.unit)} of ${fromText(from, c.part, fleet)}${madText}` +
    ` (${rel} ${formatNumber(rule.ratio)} expected)`;
  return {
    ...base,
    measured: value,
    expected,
    ok,
    message,
    outlier: { median: med, ratio: Number.isFinite(ratio) ? Number(ratio.toPrecision(6)) : ratio, from, ...(mad !== undefined && { mad }) },
  };
}

/** A CPU's matmul rate reads as GFLOP/s ("2.17 GFLOP/s", not "0.00217 TFLOP/s"), as gemm's details give it. */
export function partAmount(v: number, unit: string): string {
  if (unit === "TFLOP/s" && v !== 0 && Math.abs(v) < 0.1) return withUnit(Number((v * 1e3).toPrecision(6)), "GFLOP/s");
  return withUnit(v, unit);
}

function peersText(p: PartId, fleet: boolean): string {
  return fleet ? `every ${p.type} part of the test` : `the other ${p.type} parts of its unit`;
}

/** A few parts by name; a node's worth by count (each is in the check's `from`). */
function fromText(from: string[], p: PartId, fleet: boolean): string {
  const n = `${from.length} ${p.type} part${from.length === 1 ? "" : "s"}`;
  if (from.length > 3) return `${n} (${fleet ? "every part of the test" : "the others of its unit"})`;
  return `${n}: ${from.join(", ")}`;
}
