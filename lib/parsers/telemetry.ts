// GPUCHECK_TELEMETRY samples from every node → one summary and the series the report plots.
import { TELEMETRY_METRICS } from "../core/metrics.ts";
import type { SeriesPoint, TelemetrySummary } from "../core/types.ts";
import { taggedLines } from "./protocol.ts";
import { telemetryHealth } from "./telemetry-health.ts";

type Obj = Record<string, unknown>;
const num = (v: unknown): number | null => (typeof v === "number" && Number.isFinite(v) ? v : null);

export function summariseTelemetry(texts: string[]): TelemetrySummary {
  const samples = texts.flatMap((t) => taggedLines(t, "TELEMETRY"));
  // a loop, not Math.min(...): a long multi-node run has more samples than a call takes arguments
  let t0 = Infinity;
  for (const s of samples) t0 = Math.min(t0, num(s.t) ?? Infinity);
  const series: Record<string, SeriesPoint[]> = { util_pct: [], power_w: [], temp_c: [], cpu_util_pct: [] };
  const throttle = new Set<string>();
  const xids = new Set<string>();
  let maxTemp: number | null = null;
  let maxPower: number | null = null;
  const utils: number[] = [];
  for (const s of samples) {
    const x = (num(s.t) ?? t0) - t0;
    const gpus = Array.isArray(s.gpus) ? (s.gpus as Obj[]) : [];
    for (const key of ["util_pct", "power_w", "temp_c"] as const) {
      const vals = gpus.map((g) => num(g[key])).filter((v): v is number => v !== null);
      if (vals.length) series[key]!.push({ x, y: key === "util_pct" ? vals.reduce((a, b) => a + b, 0) / vals.length : Math.max(...vals) });
    }
    if (gpus.length === 0 && num(s.cpu_util_pct) !== null) series.cpu_util_pct!.push({ x, y: num(s.cpu_util_pct)! });
    for (const g of gpus) {
      const temp = num(g.temp_c);
      const power = num(g.power_w);
      if (temp !== null) maxTemp = Math.max(maxTemp ?? temp, temp);
      if (power !== null) maxPower = Math.max(maxPower ?? power, power);
      if (num(g.util_pct) !== null) utils.push(num(g.util_pct)!);
      if (Array.isArray(g.throttle_reasons)) for (const r of g.throttle_reasons) throttle.add(String(r));
    }
    if (Array.isArray(s.xids)) for (const x of s.xids) xids.add(typeof x === "string" ? x : JSON.stringify(x));
  }
  const health = telemetryHealth(samples);
  const gpuGaps = health.gpuGaps ?? [];
  delete health.gpuGaps;
  // the GPU readings metrics: null with the reason when some node could not read its GPUs
  const gpuWhy = gpuGaps.length ? `no GPU readings (${gpuGaps.join("; ")})` : undefined;
  for (const [metric, value] of [
    ["gpu_temp_max", maxTemp],
    ["gpu_power_max", maxPower],
    ["gpu_util_mean", utils.length ? utils.reduce((a, b) => a + b, 0) / utils.length : null],
  ] as const) {
    health.metrics[metric] = gpuWhy ? null : value;
    if (gpuWhy || value === null) health.unmeasured[metric] = gpuWhy ?? "no GPU reported this reading in any sample";
  }
  return {
    samples: samples.length,
    metrics: health.metrics,
    unmeasured: health.unmeasured,
    details: health.details,
    maxTempC: maxTemp,
    maxPowerW: maxPower,
    meanUtilPct: utils.length ? utils.reduce((a, b) => a + b, 0) / utils.length : null,
    throttleReasons: [...throttle].sort(),
    xids: [...xids],
    series: Object.fromEntries(
      Object.entries(series)
        .filter(([, pts]) => pts.length > 0)
        .map(([k, pts]) => [k, thinSeries(pts, MAX_SERIES_POINTS, k === "temp_c" || k === "power_w" ? "max" : "mean")]),
    ),
  };
}

/**
 * A sample every 500 ms from every node of an hour-long run is tens of thousands of points per
 * series, rewritten into results.json after every test; a plot shows a few hundred. The summary
 * above is taken from every sample, so thinning loses no verdict.
 */
export const MAX_SERIES_POINTS = 600;

/** At most `max` points: equal time buckets, each one point; heat and power keep the bucket's peak. */
export function thinSeries(points: SeriesPoint[], max: number, reduce: "max" | "mean"): SeriesPoint[] {
  const sorted = [...points].sort((a, b) => a.x - b.x);
  if (sorted.length <= max) return sorted;
  const x0 = sorted[0]!.x;
  const width = (sorted.at(-1)!.x - x0) / max || 1;
  const out: SeriesPoint[] = [];
  let bucket = -1;
  let xs = 0;
  let ys: number[] = [];
  const flush = () => {
    if (!ys.length) return;
    const y = reduce === "max" ? Math.max(...ys) : ys.reduce((a, b) => a + b, 0) / ys.length;
    out.push({ x: round3(xs / ys.length), y: round3(y) });
  };
  for (const p of sorted) {
    const b = Math.min(max - 1, Math.floor((p.x - x0) / width));
    if (b !== bucket) {
      flush();
      bucket = b;
      xs = 0;
      ys = [];
    }
    xs += p.x;
    ys.push(p.y);
  }
  flush();
  return out;
}

const round3 = (v: number) => Math.round(v * 1000) / 1000;

/**
 * Telemetry metrics that any test may put thresholds on, with the reason for each that is null and
 * the parts behind each that is not. No sample at all leaves every one unmeasured.
 */
export function telemetryMetrics(t: TelemetrySummary): { metrics: Record<string, number | null>; unmeasured: Record<string, string>; details: Record<string, string> } {
  if (t.samples === 0 || !t.metrics) {
    const why = t.samples === 0 ? "no telemetry sample in the output (the sampler runs beside local rank 0 of each node)" : "results from before telemetry health metrics";
    const names = Object.keys(TELEMETRY_METRICS);
    return { metrics: Object.fromEntries(names.map((m) => [m, null])), unmeasured: Object.fromEntries(names.map((m) => [m, why])), details: {} };
  }
  return { metrics: { ...t.metrics }, unmeasured: { ...t.unmeasured }, details: { ...t.details } };
}
