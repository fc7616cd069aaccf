// The one number per unit that tables show, next to the threshold it was held to.
import { lookupMetric } from "../assess/judge.ts";
import type { Expectation, TestResult, UnitResult } from "../core/types.ts";
import { formatBytes, formatNumber, withUnit } from "../core/quantity.ts";

export interface Headline {
  /** "busbw 477.2 GB/s at 8 GiB", or "busbw —" when not measured */
  value: string;
  /** "≥ 400 GB/s", "= 8", "≥ 95% of baseline", or "" without a threshold on the headline metric */
  threshold: string;
}

/** The headline metric, the expectation on it and that expectation in words. */
function target(test: TestResult) {
  const { metric, unit: u } = test.headline;
  const e = test.expect.find((x) => x.metric === metric);
  return { metric, u, e, threshold: e ? thresholdText(e) : "" };
}

export function headlineFor(test: TestResult, unit: UnitResult): Headline {
  const { metric, u, e, threshold } = target(test);
  if (!unit.measurement) return { value: `${metric} —`, threshold };
  const got = lookupMetric(unit.measurement, metric, e?.at);
  if (got.value === null) return { value: `${metric} —`, threshold };
  const where = got.at !== undefined ? ` at ${formatBytes(got.at)}` : "";
  return { value: `${metric} ${withUnit(got.value, u)}${where}`, threshold };
}

/** One headline for many units (a fleet's passing nodes): the lowest and highest value, or the one they share. */
export function headlineSpan(test: TestResult, units: UnitResult[]): Headline {
  const { metric, u, e, threshold } = target(test);
  const values = units.flatMap((x) => {
    const got = x.measurement ? lookupMetric(x.measurement, metric, e?.at).value : null;
    return got === null ? [] : [got];
  });
  if (!values.length) return { value: `${metric} —`, threshold };
  const [lo, hi] = [Math.min(...values), Math.max(...values)];
  const without = units.length - values.length;
  const span = lo === hi ? withUnit(lo, u) : `${withUnit(lo, u)} to ${withUnit(hi, u)}`;
  return { value: `${metric} ${span}${without ? ` (${without} without)` : ""}`, threshold };
}

export function thresholdText(e: Expectation): string {
  const parts: string[] = [];
  if (e.min !== undefined && e.min === e.max) parts.push(`= ${withUnit(e.min, e.unit)}`);
  else {
    if (e.min !== undefined) parts.push(`≥ ${withUnit(e.min, e.unit)}`);
    if (e.max !== undefined) parts.push(`≤ ${withUnit(e.max, e.unit)}`);
  }
  if (e.baselineRatio !== undefined) parts.push(`${formatNumber(e.baselineRatio * 100)}% of baseline`);
  return parts.join(", ");
}
