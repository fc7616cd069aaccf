// Fleet-relative verdicts for a per-node metric (issue 16, item 5): each node against the median of
// the nodes of the run, in units of the scaled MAD, so one or two broken nodes cannot drag the
// reference the way they drag a mean and a standard deviation.

/**
 * The MAD scaled by 1.4826 estimates the standard deviation of normal data (Rousseeuw & Croux 1993).
 * k = 3 scaled MADs: Leys et al. 2013 ("Detecting outliers: Do not use standard deviation around the
 * mean, use absolute deviation around the median", J. Exp. Soc. Psychol. 49) call 3 very conservative,
 * 2.5 moderately and 2 poorly; a flagged node is sent back, so the conservative cut.
 */
export const FLEET_K = 3;
const MAD_SCALE = 1.4826;
/**
 * A MAD of 0 (more than half the nodes report the same value: integer metrics, rounded output) would
 * make any difference infinitely many MADs. The scale is floored at 1 % of the median, so with k = 3 a
 * node must be 3 % off the median to be flagged: our choice, below the 5 % CV the burn kind accepts
 * from a rank's own iterations.
 */
const SCALE_FLOOR = 0.01;
/** Fewer values than this give no median worth judging against. */
const MIN_VALUES = 3;

export interface FleetRow {
  node: string;
  value: number | null;
  median: number | null;
  /** the raw median absolute deviation (unscaled) */
  mad: number | null;
  /** value / median */
  ratio: number | null;
  /** (value − median) / scale, signed: negative is below the median */
  deviations: number | null;
  /** true: outside k scaled MADs on the bad side; false: inside; null: no verdict (see why) */
  outlier: boolean | null;
  why: string;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

const fmt = (v: number) => String(Number(v.toPrecision(4)));

export function fleetOutliers(values: Array<{ node: string; value: number | null }>, opts: { k?: number; higher: boolean }): FleetRow[] {
  const k = opts.k ?? FLEET_K;
  if (!(k > 0 && Number.isFinite(k))) throw new Error(`fleetOutliers: k must be a positive number: got ${k}`);
  const measured = values.flatMap((v) => (v.value !== null && Number.isFinite(v.value) ? [v.value] : []));
  if (measured.length < MIN_VALUES) {
    const why = `no fleet verdict: ${measured.length} measured value${measured.length === 1 ? "" : "s"}, at least ${MIN_VALUES} needed for a median`;
    return values.map(({ node, value }) => ({
      node,
      value,
      median: null,
      mad: null,
      ratio: null,
      deviations: null,
      outlier: null,
      why: value === null ? `unmeasured; ${why}` : why,
    }));
  }
  const med = median(measured);
  const mad = median(measured.map((v) => Math.abs(v - med)));
  const scale = Math.max(MAD_SCALE * mad, SCALE_FLOOR * Math.abs(med));
  const floored = scale > MAD_SCALE * mad;
  return values.map(({ node, value }) => {
    // unmeasured is never judged good: no verdict, said so
    if (value === null || !Number.isFinite(value)) return { node, value, median: med, mad, ratio: null, deviations: null, outlier: null, why: "unmeasured" };
    const ratio = med === 0 ? null : value / med;
    const deviations = scale === 0 ? 0 : (value - med) / scale;
    // only the bad side: a node faster than the fleet is not sent back
    const outlier = opts.higher ? deviations < -k : deviations > k;
    const side = opts.higher ? "below" : "above";
    const unit = floored ? `× 1 % of the median (the scaled MAD, ${fmt(MAD_SCALE * mad)}, is smaller)` : "scaled MADs";
    const where = deviations === 0 ? "at the median" : `${fmt(Math.abs(deviations))} ${unit} ${deviations < 0 ? "below" : "above"} the median`;
    const why = `${fmt(value)} is ${where} ${fmt(med)}${ratio === null ? "" : ` (${fmt(ratio)} ×)`}; ${outlier ? "an outlier" : "not an outlier"}: the cut is ${k} ${side}`;
    return { node, value, median: med, mad, ratio, deviations, outlier, why };
  });
}
