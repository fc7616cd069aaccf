// Sizes, durations and numbers with units, as people write them in suite files.
// Pure functions returning either a value or the reason it is invalid; the schema turns the
// reason into a positioned message. Sizes follow nccl-tests: K/M/G/T are binary (-b 8 -e 8G).

export type Parsed<T> = { ok: true; value: T } | { ok: false; reason: string };

const KIB = 1024;

/** Size suffixes: K, M, G, T and KiB… are binary, as in nccl-tests; KB, MB… are decimal. */
export const SIZE_UNITS: Record<string, number> = {
  B: 1,
  K: KIB,
  KiB: KIB,
  KB: 1e3,
  M: KIB ** 2,
  MiB: KIB ** 2,
  MB: 1e6,
  G: KIB ** 3,
  GiB: KIB ** 3,
  GB: 1e9,
  T: KIB ** 4,
  TiB: KIB ** 4,
  TB: 1e12,
};

const SIZE_HELP = "expected a number of bytes or a number with B, KiB, MiB, GiB, TiB (binary, also K, M, G, T) or KB, MB, GB, TB (decimal)";

/** "8GiB" → 8589934592. A plain number is bytes. */
export function parseSize(input: unknown): Parsed<number> {
  if (typeof input === "number") {
    if (!Number.isSafeInteger(input)) return { ok: false, reason: `invalid size ${input}: a size in bytes must be a whole number` };
    return { ok: true, value: input };
  }
  if (typeof input !== "string") return { ok: false, reason: `invalid size ${show(input)}: ${SIZE_HELP}` };
  const m = /^\s*(\d+(?:\.\d+)?)\s*([A-Za-z]*)\s*$/.exec(input);
  const factor = m ? (m[2] === "" ? 1 : SIZE_UNITS[m[2]]) : undefined;
  if (!m || factor === undefined) return { ok: false, reason: `invalid size ${show(input)}: ${SIZE_HELP}` };
  const bytes = Number(m[1]) * factor;
  if (!Number.isSafeInteger(bytes)) return { ok: false, reason: `invalid size ${show(input)}: not a whole number of bytes` };
  return { ok: true, value: bytes };
}

/** 8589934592 → "8GiB", 1000 → "1000B": the largest binary unit that divides exactly. */
export function formatSize(bytes: number): string {
  for (const unit of ["TiB", "GiB", "MiB", "KiB"]) {
    const f = SIZE_UNITS[unit];
    if (bytes >= f && bytes % f === 0) return `${bytes / f}${unit}`;
  }
  return `${bytes}B`;
}

const DURATION_UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
const DURATION_HELP = "expected a number with ms, s, m or h (e.g. 90s, 10m, 1h30m); a plain number is seconds";

/** "1h30m" → 5400000 ms; a plain number is seconds. */
export function parseDuration(input: unknown): Parsed<number> {
  if (typeof input === "number") {
    if (!Number.isFinite(input)) return { ok: false, reason: `invalid duration ${input}: ${DURATION_HELP}` };
    return { ok: true, value: Math.round(input * 1000) };
  }
  if (typeof input !== "string") return { ok: false, reason: `invalid duration ${show(input)}: ${DURATION_HELP}` };
  const text = input.replace(/\s+/g, "");
  if (/^\d+(\.\d+)?$/.test(text)) return { ok: true, value: Math.round(Number(text) * 1000) };
  const part = /(\d+(?:\.\d+)?)(ms|s|m|h)/y;
  let ms = 0;
  let at = 0;
  for (let m = part.exec(text); m; m = part.exec(text)) {
    ms += Number(m[1]) * DURATION_UNITS[m[2]];
    at = part.lastIndex;
  }
  if (text === "" || at !== text.length) return { ok: false, reason: `invalid duration ${show(input)}: ${DURATION_HELP}` };
  return { ok: true, value: Math.round(ms) };
}

/** "400 GB/s" → { value: 400, unit: "GB/s" }; "95%" → { value: 95, unit: "%" }; 7 → unit "". */
export function parseQuantity(input: unknown): { value: number; unit: string } | undefined {
  if (typeof input === "number") return Number.isFinite(input) ? { value: input, unit: "" } : undefined;
  if (typeof input !== "string") return undefined;
  const m = /^\s*([+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?)\s*(\S.*?)?\s*$/.exec(input);
  if (!m) return undefined;
  return { value: Number(m[1]), unit: m[2] ?? "" };
}

/** A value as it appears in messages: strings quoted, maps and lists named. */
export function show(v: unknown): string {
  if (v === null || v === undefined) return "nothing";
  if (Array.isArray(v)) return "a list";
  if (typeof v === "object") return "a map";
  if (typeof v === "string") return JSON.stringify(v);
  return String(v);
}
