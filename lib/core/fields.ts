// Building blocks of the suite schema, each with the message a user should read.
// Messages starting with "must" get their subject ("nodes") prepended by ./issues.ts, which knows
// the path; every other message is complete as written.
import * as z from "./schema.ts";
import { type Parsed, parseDuration, parseSize, show } from "./units.ts";
import { suggest } from "./did-you-mean.ts";

/** Marks the message of an unrecognized_keys issue as the list of known keys (read by issues.ts). */
export const KNOWN_KEYS = "known keys:";

const must = (what: string) => (iss: { input?: unknown }) => (iss.input === undefined ? undefined : `must be ${what}, got ${show(iss.input)}`);

/** A map that rejects unknown keys, naming the close one; `what` describes it when it is not a map. */
export function strictMap<T extends z.ZodRawShape>(shape: T, what = "a map") {
  const known = Object.keys(shape);
  return z.strictObject(shape, {
    error: (iss) => (iss.code === "unrecognized_keys" ? `${KNOWN_KEYS} ${known.join(" ")}` : must(what)(iss)),
  });
}

export const text = () => z.string({ error: must("a string") });

export const nonEmptyText = () => text().min(1, { error: () => "must not be empty" });

export const name = (label: string, pattern: RegExp, hint: string) => text().regex(pattern, { error: (iss) => `invalid ${label} ${show(iss.input)}: ${hint}` });

export const bool = () => z.boolean({ error: must("true or false") });

export const positiveInt = () =>
  z
    .number({ error: must("a positive integer") })
    .int({ error: must("a positive integer") })
    .positive({ error: must("a positive integer") });

export const nonNegativeInt = () =>
  z
    .number({ error: must("a non-negative integer") })
    .int({ error: must("a non-negative integer") })
    .min(0, { error: must("a non-negative integer") });

export const intAtLeast = (min: number) =>
  z
    .number({ error: must(`an integer of at least ${min}`) })
    .int({ error: must(`an integer of at least ${min}`) })
    .min(min, { error: must(`an integer of at least ${min}`) });

export function oneOf<const T extends readonly [string, ...string[]]>(label: string, values: T) {
  return z.enum(values, {
    error: (iss) => (iss.input === undefined ? undefined : suggest(`invalid ${label} ${show(iss.input)}`, String(iss.input), values)),
  });
}

/** A positive quantity written with a unit: `noun` names it, `example` shows one. */
function positive(parse: (v: unknown) => Parsed<number>, noun: string, example: string) {
  return () =>
    z.unknown().transform((v, ctx) => {
      const r = parse(v);
      if (v === null) ctx.issues.push({ code: "custom", message: `must be a ${noun} such as ${example}, got nothing`, input: v });
      else if (!r.ok) ctx.issues.push({ code: "custom", message: r.reason, input: v });
      else if (r.value <= 0) ctx.issues.push({ code: "custom", message: `must be a positive ${noun}, got ${show(v)}`, input: v });
      else return r.value;
      return z.NEVER;
    });
}

/** "8GiB" → bytes */
export const size = positive(parseSize, "size", "8GiB");

/** "10m" → ms */
export const duration = positive(parseDuration, "duration", "90s or 10m");

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * Environment variables: names checked, values kept as text (the loader has already replaced
 * numbers and booleans by their source text, so 1.10 stays "1.10").
 */
export const envMap = () =>
  z.unknown().transform((v, ctx) => {
    if (v === null || typeof v !== "object" || Array.isArray(v)) {
      ctx.issues.push({ code: "custom", message: `must be a map of variable names to values, got ${show(v)}`, input: v });
      return z.NEVER;
    }
    const out: Record<string, string> = {};
    for (const [k, value] of Object.entries(v)) {
      if (!ENV_NAME.test(k)) {
        ctx.issues.push({
          code: "custom",
          path: [k],
          params: { at: "key" },
          input: k,
          message: `invalid environment variable name ${show(k)}: expected letters, digits and _, not starting with a digit`,
        });
      } else if (typeof value === "string" || typeof value === "number" || typeof value === "boolean") {
        out[k] = String(value);
      } else {
        ctx.issues.push({ code: "custom", path: [k], input: value, message: `must be a string, got ${show(value)}` });
      }
    }
    return out;
  });

/**
 * `redact:` a list of environment variable names whose values gpucheck writes as *** (lib/core/redact.ts),
 * beside those whose names look secret.
 */
export const envNames = () =>
  z.unknown().transform((v, ctx) => {
    if (!Array.isArray(v)) {
      ctx.issues.push({
        code: "custom",
        input: v,
        message: `must be a list of environment variable names whose values gpucheck writes as *** (for example [API_URL, HF_HUB]), got ${show(v)}`,
      });
      return z.NEVER;
    }
    v.forEach((k, i) => {
      if (typeof k !== "string" || !ENV_NAME.test(k))
        ctx.issues.push({
          code: "custom",
          path: [i],
          input: k,
          message: `invalid environment variable name ${show(k)} in "redact": expected letters, digits and _, not starting with a digit`,
        });
    });
    return v.filter((k): k is string => typeof k === "string" && ENV_NAME.test(k));
  });

/** "95%" or 0.95 → 0.95: the share of the baseline's performance required. */
export const ratio = () =>
  z.unknown().transform((v, ctx) => {
    const m = typeof v === "string" ? /^\s*(\d+(?:\.\d+)?)\s*%\s*$/.exec(v) : null;
    const r = m ? Number(m[1]) / 100 : typeof v === "number" ? v : NaN;
    if (r > 0 && r <= 10) return r;
    ctx.issues.push({ code: "custom", input: v, message: `must be a percentage of the baseline such as 95%, or a ratio such as 0.95, got ${show(v)}` });
    return z.NEVER;
  });
