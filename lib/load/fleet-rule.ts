// `outlier:` under a metric with one value per unit (busbw, samples_per_s): in a per-node test each
// node is compared with the median of the test's nodes, the fleet. By the MAD by default, since one
// or two broken nodes cannot drag a median and a MAD the way they drag a mean and a deviation.
import type { MetricInfo } from "../core/metrics.ts";
import type { FleetRule } from "../core/types.ts";
// fleet.ts alone: the isolation engine behind lib/isolate/mod.ts is not the loader's to load
import { FLEET_K } from "../isolate/fleet.ts";
import type { Report } from "./outlier.ts";
import type { PathKey, ThresholdInput } from "./schema.ts";

export function resolveFleetRule(o: NonNullable<ThresholdInput["outlier"]>, metric: string, info: MetricInfo, here: PathKey[], report: Report): FleetRule | undefined {
  const side = info.better === "higher" ? "below" : "above";
  const other = side === "below" ? "above" : "below";
  let ok = true;
  if (o.over !== undefined && o.over !== "fleet") {
    report(
      [...here, "over"],
      `"over: ${o.over}" does not apply to "${metric}", one value per unit: each node of a per-node test is compared with the test's nodes ("over: fleet")`,
    );
    ok = false;
  }
  if (o[other] !== undefined) {
    report(
      [...here, other],
      `"${other}" does not apply to "${metric}" (${side === "below" ? "higher" : "lower"} is better: a bad node is ${side} the median): write "${side}"`,
      "key",
    );
    ok = false;
  }
  const ratio = o[side];
  if (ratio !== undefined && (side === "below" ? !(ratio > 0 && ratio < 1) : !(ratio > 1 && ratio <= 10))) {
    report([...here, side], `"${side}" must be ${side === "below" ? "between 0 and 1 (exclusive), such as 0.9" : "above 1 and at most 10, such as 1.1"}, got ${ratio}`);
    ok = false;
  }
  // past 10 scaled MADs no node is ever flagged; below 1 a healthy fleet's own spread is
  if (o.mad !== undefined && !(o.mad >= 1 && o.mad <= 10)) {
    report([...here, "mad"], `"mad" must be between 1 and 10 scaled MADs, such as ${FLEET_K}, got ${o.mad}`);
    ok = false;
  }
  if (ratio !== undefined && o.mad !== undefined) {
    report(here, `"${side}" and "mad" are two rules for one outlier: give one (${side}: a ratio to the median; mad: scaled MADs from it)`, "key");
    ok = false;
  }
  if (!ok) return undefined;
  return ratio !== undefined ? { side, ratio } : { side, k: o.mad ?? FLEET_K };
}
