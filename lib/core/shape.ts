// zod's answer for a schema without loading zod: a schema's shape as plain data (generated at build
// time by shapeOf, scripts/gen-shapes.ts), and conform(), which gives the value zod's parse would
// give, or MISMATCH. Loading zod and building a schema cost `gpucheck verify` more than the rest of
// its start-up (BENCHMARKS.md, "Start-up: issue 12 item 10"); a mismatch goes to zod itself, which
// says what is wrong, so every message stays zod's. Only what the predicate schema uses is read:
// shapeOf throws on anything else, so a new construct fails the build instead of being misread.
import type { z } from "zod";

export type Shape =
  | { t: "object"; shape: Record<string, Shape> }
  | { t: "string"; pattern?: string }
  | { t: "number" }
  | { t: "boolean" }
  | { t: "unknown" }
  | { t: "nullable"; of: Shape }
  | { t: "optional"; of: Shape }
  | { t: "enum"; values: string[] }
  | { t: "array"; of: Shape; min?: number }
  | { t: "record"; of: Shape };

export const MISMATCH: unique symbol = Symbol("mismatch");

interface Def {
  type: string;
  shape?: Record<string, z.ZodType>;
  catchall?: unknown;
  innerType?: z.ZodType;
  element?: z.ZodType;
  keyType?: z.ZodType;
  valueType?: z.ZodType;
  entries?: Record<string, unknown>;
  checks?: Array<{ _zod: { def: { check: string; format?: string; pattern?: RegExp; minimum?: number } } }>;
}

/** A zod schema's shape, for conform(); throws on what conform does not read as zod does. */
export function shapeOf(schema: z.ZodType): Shape {
  const def = (schema as unknown as { _zod: { def: Def } })._zod.def;
  const checks = (def.checks ?? []).map((c) => c._zod.def);
  const unsupported = () => new Error(`shapeOf: zod ${def.type} ${JSON.stringify(checks)} is not read by conform()`);
  const only = (...allowed: string[]) => {
    if (checks.some((c) => !allowed.includes(c.format ?? c.check))) throw unsupported();
  };
  switch (def.type) {
    case "object":
      only();
      // unknown keys are stripped (zod's default); a strict or catchall object would need more
      if (def.catchall !== undefined) throw unsupported();
      return { t: "object", shape: Object.fromEntries(Object.entries(def.shape!).map(([k, v]) => [k, shapeOf(v)])) };
    case "string": {
      only("regex");
      const pattern = checks[0]?.pattern;
      if (pattern?.flags) throw unsupported();
      return pattern ? { t: "string", pattern: pattern.source } : { t: "string" };
    }
    case "number":
    case "boolean":
    case "unknown":
      only();
      return { t: def.type };
    case "nullable":
    case "optional":
      return { t: def.type, of: shapeOf(def.innerType!) };
    case "enum":
      if (!Object.values(def.entries!).every((v) => typeof v === "string")) throw unsupported();
      return { t: "enum", values: Object.values(def.entries!) as string[] };
    case "array": {
      only("min_length");
      const min = checks[0]?.minimum;
      return min === undefined ? { t: "array", of: shapeOf(def.element!) } : { t: "array", of: shapeOf(def.element!), min };
    }
    case "record":
      if ((def.keyType as unknown as { _zod: { def: Def } })._zod.def.type !== "string") throw unsupported();
      return { t: "record", of: shapeOf(def.valueType!) };
    default:
      throw unsupported();
  }
}

// a certificate holds hundreds of strings of a few patterns (digests, names): each compiled once
const compiled = new Map<string, RegExp>();
const regex = (pattern: string): RegExp => compiled.get(pattern) ?? compiled.set(pattern, new RegExp(pattern)).get(pattern)!;

const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v) && Object.getPrototypeOf(v) === Object.prototype;

/**
 * What zod's parse of `value` against the schema of `shape` returns, or MISMATCH when zod would
 * report an issue. Stricter than zod where that is simpler (a "__proto__" key, an absent value that
 * is not optional): MISMATCH only sends the value to zod, which then decides.
 */
export function conform(value: unknown, shape: Shape): unknown {
  switch (shape.t) {
    case "object": {
      if (!isPlainObject(value) || Object.hasOwn(value, "__proto__")) return MISMATCH;
      // zod's output: the schema's keys, in the schema's order; any other key is dropped
      const out: Record<string, unknown> = {};
      for (const [k, s] of Object.entries(shape.shape)) {
        if (!Object.hasOwn(value, k)) {
          if (s.t !== "optional") return MISMATCH;
          continue;
        }
        const v = conform(value[k], s);
        if (v === MISMATCH) return MISMATCH;
        out[k] = v;
      }
      return out;
    }
    case "string":
      return typeof value === "string" && (shape.pattern === undefined || regex(shape.pattern).test(value)) ? value : MISMATCH;
    case "number":
      return typeof value === "number" && Number.isFinite(value) ? value : MISMATCH;
    case "boolean":
      return typeof value === "boolean" ? value : MISMATCH;
    case "unknown":
      return value === undefined ? MISMATCH : value;
    case "nullable":
      return value === null ? null : conform(value, shape.of);
    case "optional":
      return value === undefined ? MISMATCH : conform(value, shape.of);
    case "enum":
      return typeof value === "string" && shape.values.includes(value) ? value : MISMATCH;
    case "array": {
      if (!Array.isArray(value) || value.length < (shape.min ?? 0)) return MISMATCH;
      const out = value.map((v) => conform(v, shape.of));
      return out.includes(MISMATCH) ? MISMATCH : out;
    }
    case "record": {
      if (!isPlainObject(value) || Object.hasOwn(value, "__proto__")) return MISMATCH;
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(value)) {
        const c = conform(v, shape.of);
        if (c === MISMATCH) return MISMATCH;
        out[k] = c;
      }
      return out;
    }
  }
}
