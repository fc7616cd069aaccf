// How numbers read in verdicts, tables and plot labels. One place so "8 GiB" in a JUnit failure,
// the summary table and the plot axis are the same string.

const BINARY = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"];

/** Message sizes are powers of two in practice (nccl-tests -b/-e use 2^10 multipliers): 8589934592 → "8 GiB". */
export function formatBytes(n: number): string {
  let v = n;
  let i = 0;
  while (Math.abs(v) >= 1024 && i < BINARY.length - 1) {
    v /= 1024;
    i++;
  }
  const text = Number.isInteger(v) ? String(v) : v.toFixed(1).replace(/\.0$/, "");
  return `${text} ${BINARY[i]}`;
}

/** Enough digits to compare with a threshold, never exponent notation for everyday values. */
export function formatNumber(v: number): string {
  if (!Number.isFinite(v)) return String(v);
  if (Number.isInteger(v)) return String(v);
  const a = Math.abs(v);
  if (a >= 100) return v.toFixed(1).replace(/\.0$/, "");
  if (a >= 1) return v.toFixed(2).replace(/\.?0+$/, "");
  if (a >= 0.001) return String(Number(v.toPrecision(3)));
  return v.toExponential(2);
}

/** Units that are a word rather than a unit ("count") are not repeated after the number. */
export function withUnit(v: number, unit: string): string {
  return attachUnit(formatNumber(v), unit);
}

export function attachUnit(text: string, unit: string): string {
  if (unit === "" || unit === "count") return text;
  if (unit === "%") return `${text}%`;
  return `${text} ${unit}`;
}

/**
 * Signed distance from the threshold: a percentage of it, or the plain difference when the threshold
 * is zero (wrong = 0 has no meaningful percentage).
 */
export function formatMargin(measured: number, expected: number, unit: string): string {
  if (expected === 0) {
    const d = measured - expected;
    return `${d >= 0 ? "+" : "-"}${withUnit(Math.abs(d), unit)}`;
  }
  const pct = ((measured - expected) / Math.abs(expected)) * 100;
  // below 1% a rounded "+0%" would hide which side of the threshold the value fell
  const text = Math.abs(pct) < 1 ? Math.abs(pct).toPrecision(2) : String(Math.round(Math.abs(pct)));
  return `${pct < 0 ? "-" : "+"}${text}%`;
}

/** 0.4 → "0.400 s", 75 → "1m15s", 3725 → "1h02m05s": short enough for a table column. */
export function formatDuration(seconds: number): string {
  if (seconds < 60) return `${seconds.toFixed(seconds < 10 ? 3 : 1)} s`;
  const s = Math.round(seconds);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const r = s % 60;
  const mm = String(m).padStart(h > 0 ? 2 : 1, "0");
  return `${h > 0 ? `${h}h` : ""}${mm}m${String(r).padStart(2, "0")}s`;
}
