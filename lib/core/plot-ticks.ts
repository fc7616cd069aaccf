// Axis ticks. The first and last tick are the ends of the axis, so every point lies inside it.

export interface Tick {
  value: number;
  label: string;
}

/** 1-2-5 steps, about `target` of them, covering [min, max]. */
export function linearTicks(min: number, max: number, label: (v: number) => string, target = 6): Tick[] {
  if (!(max > min)) max = min + 1;
  const raw = (max - min) / target;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((k) => k * mag).find((s) => s >= raw) ?? 10 * mag;
  const lo = Math.floor(min / step) * step;
  const hi = Math.ceil(max / step) * step;
  const out: Tick[] = [];
  // integer multiples of step, so 0.1 + 0.2 style drift never reaches a label
  for (let i = Math.round(lo / step); i <= Math.round(hi / step); i++) {
    const v = Number((i * step).toPrecision(12));
    out.push({ value: v, label: label(v) });
  }
  return out;
}

/**
 * Powers of two from below `min` to above `max` (message sizes: 8 B … 8 GiB), at most about `target`
 * labelled, counted down from the top so the largest size (where thresholds apply) always has one.
 */
export function log2Ticks(min: number, max: number, label: (v: number) => string, target = 9): Tick[] {
  const lo = Math.floor(Math.log2(Math.max(min, Number.MIN_VALUE)));
  const hi = Math.max(lo + 1, Math.ceil(Math.log2(Math.max(max, min))));
  const step = Math.max(1, Math.ceil((hi - lo) / target));
  const exps = [];
  for (let e = hi; e > lo; e -= step) if (e - lo >= step * 0.75 || e === hi) exps.push(e);
  exps.push(lo);
  return exps.reverse().map((e) => ({ value: 2 ** e, label: label(2 ** e) }));
}
