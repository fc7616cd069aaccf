// `outlier: { below: 0.93, over: fleet }` under a per-component metric's threshold → OutlierRule,
// each wrong value reported at its key.
import type { MetricInfo } from "../core/metrics.ts";
import type { OutlierRule } from "../core/types.ts";
import { suggest } from "../core/did-you-mean.ts";
import type { PathKey, Problem, ThresholdInput } from "./schema.ts";

export type Report = (path: PathKey[], message: string, where?: Problem["at"], also?: PathKey[][]) => void;

const OVER = ["unit", "fleet"];

/**
 * `outlier: { below: 0.93, over: fleet }`. The side follows the metric's direction (a slow GPU is
 * below its peers, a slow link's latency above), so the wrong one is an error rather than a rule
 * that can never fail.
 */
export function resolveOutlier(o: NonNullable<ThresholdInput["outlier"]>, metric: string, info: MetricInfo, here: PathKey[], report: Report): OutlierRule | undefined {
  const side = info.better === "higher" ? "below" : "above";
  const other = side === "below" ? "above" : "below";
  let ok = true;
  if (o[other] !== undefined) {
    ok = false;
    const dir = info.better === "higher" ? "higher is better: a bad part is below the median" : "lower is better: a bad part is above the median";
    report([...here, other], `"${other}" does not apply to "${metric}" (${dir}): write "${side}"`, "key");
  }
  if (o.mad !== undefined) {
    report(
      [...here, "mad"],
      `"mad" applies to metrics with one value per unit (each node of a per-node test against the others); "${metric}" is per component: use "${side}"`,
      "key",
    );
    ok = false;
  }
  const ratio = o[side];
  if (ratio === undefined) {
    if (ok) report(here, `"outlier" needs "${side}" (the ratio to the median that fails a part), e.g. { ${side}: ${side === "below" ? "0.93" : "1.1"} }`, "key");
    return undefined;
  }
  // a ratio of 1 or past it on the wrong side fails half the parts of a healthy node; past 10× no
  // measurement noise reaches, so it is a typo for a percentage
  if (side === "below" ? !(ratio > 0 && ratio < 1) : !(ratio > 1 && ratio <= 10)) {
    report([...here, side], `"${side}" must be ${side === "below" ? "between 0 and 1 (exclusive), such as 0.93" : "above 1 and at most 10, such as 1.1"}, got ${ratio}`);
    ok = false;
  }
  const over = o.over ?? "unit";
  if (!OVER.includes(over)) {
    report([...here, "over"], suggest(`unknown "over" "${over}" (unit: the other parts of the same unit; fleet: every part of the test)`, over, OVER));
    ok = false;
  }
  return ok ? { side, ratio, over: over as OutlierRule["over"] } : undefined;
}
