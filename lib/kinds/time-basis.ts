// What a kind's time estimate (lib/kinds/<kind>/time.ts) reads and returns. An estimate is the test's own
// work at the suite's floors: a healthy part is at least that fast, so the work takes at most that long.
// The launch's start-up is added once per launch by lib/plan/expected-time.ts, not here.
import type { Expectation } from "../core/types.ts";

/** the work's length and what it was estimated from ("estimated from …") */
export interface KindTime {
  ms: number;
  basis: string;
}

/** why a kind cannot estimate this test: its timeout is then the upper bound, and the plan says why */
export interface NoEstimate {
  why: string;
}

export type KindEstimate = KindTime | NoEstimate;

/** the parts of a planned test an estimate reads besides its kind's block */
export interface EstimateContext {
  expect: readonly Expectation[];
  worldSize: number;
  gpusPerNode: number;
}

/** a metric's absolute floor (`min:`) in the suite, in the metric's canonical unit; an outlier or baseline rule alone is no floor */
export function floorOf(expect: readonly Expectation[], metric: string): number | undefined {
  const e = expect.find((x) => x.metric === metric && x.min !== undefined && x.min > 0 && x.baselineRatio === undefined);
  return e?.min;
}

/** "360" or "37.5": a floor as the suite wrote it */
export const num = (x: number): string => String(Math.round(x * 100) / 100);

/** seconds → ms, rounded to the millisecond */
export const ms = (seconds: number): number => Math.round(seconds * 1000);
