// A soak's verdict over time: per part and metric, the series of its values round by round, and
// whether the part got worse. One snapshot can pass a part that is failing slowly (a GPU heating up
// round after round, a link whose bandwidth sags, an error counter that keeps moving); the trend
// compares the part with itself, so a part that was always slow is the rounds' own checks' business.
import type { PartId } from "../core/types.ts";
import type { SeriesStore } from "./series.ts";
import { partName } from "../core/parts.ts";

export interface TrendOptions {
  /** the largest change in the worse direction a part may show, as a fraction (0.1: 10 %) */
  maxDrift: number;
  /** a metric's unit and better direction; undefined: not judged over time (recorded) */
  metricInfo: (kind: string, metric: string) => { unit: string; better: "higher" | "lower" } | undefined;
}

export interface Trend {
  test: string;
  kind: string;
  /** the node (or the unit, for a figure of a group of nodes) */
  node: string;
  /** the part, or absent for a unit's own figure */
  part?: PartId;
  metric: string;
  unit: string;
  better: "higher" | "lower";
  rounds: number[];
  values: Array<number | null>;
  /** median of the first third of the measured rounds (at least one) */
  reference: number | null;
  /** median of the last third of the measured rounds */
  end: number | null;
  /** end ÷ reference − 1 */
  change: number | null;
  /** least-squares slope per round, as a fraction of the reference */
  slopePerRound: number | null;
  worst: { round: number; value: number } | null;
  verdict: "passed" | "failed" | "error";
  message: string;
}

/** Fewer measured rounds than this cannot tell a trend from noise: the trend is an error saying so. */
export const MIN_TREND_ROUNDS = 3;

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
};

function slope(xs: number[], ys: number[]): number {
  const n = xs.length;
  const mx = xs.reduce((a, b) => a + b, 0) / n;
  const my = ys.reduce((a, b) => a + b, 0) / n;
  let num = 0;
  let den = 0;
  for (let i = 0; i < n; i++) {
    num += (xs[i]! - mx) * (ys[i]! - my);
    den += (xs[i]! - mx) ** 2;
  }
  return den === 0 ? 0 : num / den;
}

/** Three significant digits, no trailing zeros: 695, 60, 0.00597 */
const fmt = (v: number) => String(Number(v.toPrecision(3)));
const pct = (f: number) => `${(f * 100).toFixed(f !== 0 && Math.abs(f) < 0.1 ? 1 : 0)} %`;
const span = (rs: number[]) => (rs.length === 1 ? `round ${rs[0]}` : `rounds ${rs[0]}–${rs.at(-1)}`);

/** Every part's trend over the complete rounds of the store. */
export function trendsOf(store: SeriesStore, opts: TrendOptions): Trend[] {
  const all = store.rounds;
  const out: Trend[] = [];
  for (const [k, s] of store.keys.entries()) {
    const info = opts.metricInfo(s.kind, s.metric);
    if (!info) continue;
    const values = store.values[k]!;
    const measured = all.flatMap((r, i) => (values[i] === null || values[i] === undefined ? [] : [{ round: r, value: values[i] as number }]));
    const who = s.part ? partName(s.part) : s.node;
    const base = { test: s.test, kind: s.kind, node: s.node, ...(s.part ? { part: s.part } : {}), metric: s.metric, unit: info.unit, better: info.better, rounds: all, values };
    // never measured in any round: nothing to trend; each round's own results say why it was unmeasured
    if (measured.length === 0) continue;
    if (measured.length < MIN_TREND_ROUNDS) {
      out.push({
        ...base,
        reference: null,
        end: null,
        change: null,
        slopePerRound: null,
        worst: null,
        verdict: "error",
        message: `${who}: ${s.metric} measured in ${measured.length} of ${all.length} round${all.length === 1 ? "" : "s"}: a trend needs at least ${MIN_TREND_ROUNDS}; never counted passed`,
      });
      continue;
    }
    const third = Math.max(1, Math.floor(measured.length / 3));
    const first = measured.slice(0, third);
    const last = measured.slice(-third);
    const reference = median(first.map((p) => p.value));
    const end = median(last.map((p) => p.value));
    const worse = info.better === "higher" ? (a: number, b: number) => a < b : (a: number, b: number) => a > b;
    const worst = measured.reduce((w, p) => (worse(p.value, w.value) ? p : w), measured[0]!);
    const change = reference === 0 ? (end === 0 ? 0 : null) : end / reference - 1;
    const rawSlope = slope(
      measured.map((p) => p.round),
      measured.map((p) => p.value),
    );
    const slopePerRound = reference === 0 ? null : rawSlope / Math.abs(reference);
    // the worse direction only: a part that got faster, or cooler, did not degrade
    const drift = change === null ? (end > reference === (info.better === "lower") ? Infinity : 0) : info.better === "higher" ? -change : change;
    // a count that should stay at zero (errors, Xids) degrades when it moves at all
    const counter = info.unit === "count" && info.better === "lower";
    const failed = counter ? end > reference : drift > opts.maxDrift;
    // each value with its round: an interrupted round is no round of the series, so the numbers can skip
    const series = values.map((v, i) => `${all[i]}: ${v === null ? "—" : fmt(v)}`).join(", ");
    const verb = info.better === "higher" ? (end < reference ? "fell" : "rose") : end > reference ? "rose" : "fell";
    const changeText = change === null ? `from 0 to ${fmt(end)}` : `${verb} ${pct(Math.abs(change))}`;
    const how = `${fmt(reference)} ${info.unit} (median of ${span(first.map((p) => p.round))}) → ${fmt(end)} ${info.unit} (median of ${span(last.map((p) => p.round))})`;
    const limit = counter ? "a count that must not grow" : `the ${pct(opts.maxDrift)} a part may drift (--max-drift)`;
    out.push({
      ...base,
      reference,
      end,
      change,
      slopePerRound,
      worst,
      verdict: failed ? "failed" : "passed",
      // a part that held gets one short line; one that degraded gets its worst round and whole series
      message: failed
        ? `${who}: ${s.metric} ${changeText} over the soak: ${how}, beyond ${limit}; worst round ${worst.round} (${fmt(worst.value)}); by round ${series}`
        : `${who}: ${s.metric} ${changeText} over the soak: ${how}, within ${limit}`,
    });
  }
  return out;
}
