// Which plots a test gets: its kind's own (lib/kinds/: busbw against message size for collectives,
// one curve per node in per-node mode, the threshold as a line; throughput over steps for training),
// and GPU utilisation, power and temperature over time from telemetry.
import { kindOf } from "../kinds/mod.ts";
import type { PlotContext } from "../core/kind.ts";
import type { Expectation, TestResult, UnitResult } from "../core/types.ts";
import type { PlotSeries, PlotSpec } from "../core/plot-svg.ts";
import { thresholdText } from "./headline.ts";
import { formatBytes } from "../core/quantity.ts";

const TELEMETRY: Array<{ key: string; title: string; yLabel: string; yTop?: number }> = [
  { key: "util_pct", title: "GPU utilisation", yLabel: "%", yTop: 100 },
  { key: "power_w", title: "GPU power (max over GPUs)", yLabel: "W" },
  { key: "temp_c", title: "GPU temperature (max over GPUs)", yLabel: "°C" },
  // nodes without a GPU report the host's CPU load instead
  { key: "cpu_util_pct", title: "CPU utilisation", yLabel: "%", yTop: 100 },
];

export function plotsForTest(test: TestResult, index: number): PlotSpec[] {
  const plots: PlotSpec[] = [];
  const id = (k: string) => `plot-${index}-${k}`;
  const name = (u: UnitResult) => (u.unit === "all" ? test.name : u.unit);

  const curves = (points: (u: UnitResult) => Array<[number, number | null]> | undefined) => seriesOf(test.units, name, points);
  // a minimum on the plotted metric becomes a dashed line
  const line = (metric: string) => threshold(test.expect.find((x) => x.metric === metric && x.min !== undefined));
  // a soak's trend test (lib/soak/index-results.ts): each metric's values round by round, one curve per part
  const trends = trendPlots(test, id);
  if (trends.length) return trends;
  // a results.json of a kind this gpucheck does not know still gets its telemetry plots
  const plot: PlotContext["plot"] = (metric, spec) => ({ id: id(metric), xScale: "linear", ...spec, ...line(metric) });
  plots.push(...(kindOf(test.kind)?.plots(test, { id, series: curves, plot }) ?? []));
  for (const t of TELEMETRY) {
    const series = seriesOf(test.units, name, (u) => u.telemetry?.series?.[t.key]?.map((p) => [p.x, p.y] as [number, number]));
    if (series.length > 0) {
      plots.push({ id: id(t.key), kind: t.key, title: `${test.name}: ${t.title}`, xLabel: "seconds since start", yLabel: t.yLabel, xScale: "linear", series, yTop: t.yTop });
    }
  }
  return plots;
}

/** The key prefix of a soak's trend series in a unit's measurement.series: "trend:<metric>:<part>". */
export const TREND_SERIES_PREFIX = "trend:";

/** The series a soak's index keeps per part ("trend:<metric>:<part>"), as one plot per metric. */
function trendPlots(test: TestResult, id: (k: string) => string): PlotSpec[] {
  const byMetric = new Map<string, PlotSeries[]>();
  for (const u of test.units)
    for (const [key, points] of Object.entries(u.measurement?.series ?? {})) {
      if (!key.startsWith(TREND_SERIES_PREFIX)) continue;
      const [metric, ...who] = key.slice(TREND_SERIES_PREFIX.length).split(":");
      const name = who.join(":") === u.unit ? u.unit : `${u.unit} ${who.join(":")}`;
      byMetric.set(metric!, [...(byMetric.get(metric!) ?? []), { name, points: points.map((p) => [p.x, p.y] as [number, number]) }]);
    }
  return [...byMetric].map(([metric, series]) => ({
    id: id(`trend-${metric}`),
    kind: "trend",
    title: `${test.name}: ${metric} round by round`,
    xLabel: "round",
    yLabel: metric,
    xScale: "linear",
    series,
  }));
}

function seriesOf(units: UnitResult[], name: (u: UnitResult) => string, points: (u: UnitResult) => Array<[number, number | null]> | undefined): PlotSeries[] {
  return units.flatMap((u) => {
    const p = points(u);
    return p && p.length > 0 ? [{ name: name(u), points: [...p].sort((a, b) => a[0] - b[0]) }] : [];
  });
}

/** A minimum on the plotted metric becomes a dashed line; one tied to a size says which. */
function threshold(e: Expectation | undefined): { threshold?: { y: number; label: string } } {
  if (!e || e.min === undefined) return {};
  return { threshold: { y: e.min, label: `${thresholdText({ ...e, baselineRatio: undefined, max: undefined })}${e.at !== undefined ? ` at ${formatBytes(e.at)}` : ""}` } };
}
