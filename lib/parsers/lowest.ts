// The worst part of a per-part metric (membw, pcie): the lowest value with every part named, worst
// first, so a failing check says which GPU to replace and how the others compare.
import type { Measurement } from "../core/types.ts";

export interface PartValue {
  /** the part, named as lib/parsers/part.ts names it */
  part: string;
  value: number | null;
  /** why the value is null */
  why?: string;
  /** this part's line in the details ("best 2950.1 GB/s, median 2931.0 GB/s") */
  text: string;
}

/**
 * Sets `metric` to the lowest value over the parts, details naming every part worst first; or null
 * with every gap's reason when any part is unmeasured: the lowest of the others would pass a node
 * whose unmeasured part was never looked at.
 */
export function setLowest(m: Measurement, metric: string, rows: PartValue[], prefix = ""): void {
  const gaps = rows.filter((r) => r.value === null);
  if (rows.length === 0 || gaps.length) {
    m.metrics[metric] = null;
    m.unmeasured![metric] = gaps.length ? gaps.map((r) => `${r.part}: ${r.why ?? "not reported"}`).join("; ") : "no part reported";
    return;
  }
  const sorted = [...rows].sort((a, b) => (a.value as number) - (b.value as number));
  m.metrics[metric] = sorted[0]!.value;
  m.details![metric] = prefix + sorted.map((r) => `${r.part}: ${r.text}`).join("; ");
}

/** "2950.1 GB/s" */
export const gbps = (v: number) => `${v.toFixed(1)} GB/s`;
