// Field-by-field parsing of a strict map, so that one bad field neither hides the problems of the
// others nor stops the cross-field checks that do not depend on it. Returns what parsed, every
// problem, and the dotted names of the fields that did not ("collective.minBytes", "expect.busbw";
// "train.?" when the train block has an unknown key, "*" when the value is not a map at all).
import * as z from "../../core/schema.ts";
import { suggest } from "../../core/did-you-mean.ts";
import { type PathKey, type Problem, problemsFromIssues } from "../../core/issues.ts";

export interface Fields {
  data: Record<string, unknown>;
  problems: Problem[];
  broken: Set<string>;
}

type AnyObject = z.ZodObject<z.ZodRawShape>;

export function parseFields(schema: AnyObject, raw: unknown, path: PathKey[]): Fields {
  // the common case, a valid map, in one call; field by field only to explain a failure
  const whole = schema.safeParse(raw);
  if (whole.success) return { data: whole.data, problems: [], broken: new Set() };
  const out: Fields = { data: {}, problems: [], broken: new Set() };
  if (!isMap(raw)) {
    const r = schema.safeParse(raw, { reportInput: true });
    if (!r.success) out.problems.push(...problemsFromIssues(r.error.issues, path));
    out.broken.add("*");
    return out;
  }
  const shape = schema.shape;
  const known = Object.keys(shape);
  for (const key of Object.keys(raw)) {
    if (Object.hasOwn(shape, key)) continue;
    out.problems.push({ path: [...path, key], at: "key", message: suggest(`unknown key "${key}"`, key, known) });
    // a misspelt key may be the value a "missing …" check would ask for
    out.broken.add("?");
  }
  for (const key of known) {
    const field = shape[key] as z.ZodType;
    const inner = field instanceof z.ZodOptional ? (field.unwrap() as z.ZodType) : field;
    const value = raw[key];
    if (inner instanceof z.ZodObject && isMap(value)) {
      const sub = parseFields(inner as AnyObject, value, [...path, key]);
      absorb(out, key, sub);
      out.data[key] = sub.data;
    } else if (inner instanceof z.ZodRecord && inner.valueType instanceof z.ZodObject && isMap(value)) {
      const entries: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(value)) {
        const sub = parseFields(inner.valueType as AnyObject, v, [...path, key, k]);
        absorb(out, `${key}.${k}`, sub);
        if (sub.broken.size === 0) entries[k] = sub.data;
      }
      out.data[key] = entries;
    } else {
      const r = field.safeParse(value, { reportInput: true });
      if (r.success) {
        if (r.data !== undefined) out.data[key] = r.data;
      } else {
        out.problems.push(...problemsFromIssues(r.error.issues, [...path, key]));
        out.broken.add(key);
      }
    }
  }
  return out;
}

function absorb(out: Fields, name: string, sub: Fields): void {
  out.problems.push(...sub.problems);
  for (const b of sub.broken) out.broken.add(b === "*" ? name : `${name}.${b}`);
}

function isMap(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
