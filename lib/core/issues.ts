// Schema issues (of zod's shape, from lib/core/schema.ts) → problems a person can act on: a path into
// the suite, where on it to point, and a message in the house style (lower case start, quoted values,
// colon before detail, no period). Plugins' settings schemas go through here too, so their default
// zod-worded messages are rewritten.
import type { Def, Issue, ZodType } from "./schema.ts";
import { show } from "./units.ts";
import { suggest } from "./did-you-mean.ts";
import { KNOWN_KEYS } from "./fields.ts";

export type PathKey = string | number;

/** A problem at a path of the (merged) suite data; the loader turns it into a Diagnostic. */
export interface Problem {
  path: PathKey[];
  message: string;
  /** point at the value, at its key (unknown or misplaced keys), or at the map (missing keys) */
  at: "value" | "key" | "map";
  /**
   * other values that take part in a cross-field problem; with `extends`, the loader points at
   * whichever of them the user's own file wrote
   */
  also?: PathKey[][];
}

/**
 * `schema` (the one that produced the issues) lets unknown keys of schemas written elsewhere —
 * the plugins' settings — get a "did you mean" too.
 */
export function problemsFromIssues(issues: readonly Issue[], prefix: PathKey[] = [], schema?: ZodType): Problem[] {
  return issues.flatMap((iss) => {
    const rel = iss.path.filter((k): k is PathKey => typeof k !== "symbol");
    return problemsFromIssue(iss, [...prefix, ...rel], () => knownKeysAt(schema, rel));
  });
}

function problemsFromIssue(iss: Issue, path: PathKey[], knownKeys: () => string[]): Problem[] {
  if (iss.code === "unrecognized_keys") {
    const known = iss.message.startsWith(KNOWN_KEYS) ? iss.message.slice(KNOWN_KEYS.length).trim().split(" ") : knownKeys();
    return iss.keys.map((key) => ({ path: [...path, key], at: "key" as const, message: suggest(`unknown key "${key}"`, key, known) }));
  }
  const last = path.at(-1);
  if (iss.input === undefined && (iss.code === "invalid_type" || iss.code === "invalid_value") && typeof last === "string") {
    const values = iss.code === "invalid_value" ? `: expected one of ${iss.values.join(", ")}` : "";
    return [{ path: path.slice(0, -1), at: "map", message: `missing required key "${last}"${values}` }];
  }
  const at = iss.code === "custom" && iss.params?.at === "key" ? "key" : "value";
  const message = isZodDefault(iss.message) ? genericMessage(iss, last) : iss.message;
  return [{ path, at, message: message.startsWith("must ") ? `${subject(path)} ${message}` : message }];
}

/** `"nodes"`, `item 3 of "tests"`, or `the suite`: what a "must …" message is about. */
export function subject(path: readonly PathKey[]): string {
  const last = path.at(-1);
  if (last === undefined) return "the suite";
  if (typeof last === "number") return `item ${last + 1} of ${path.length > 1 ? `"${path.at(-2)}"` : "the list"}`;
  return `"${last}"`;
}

// zod's own messages start with a capital ("Invalid input: …", "Too small: …"); ours never do.
function isZodDefault(message: string): boolean {
  return /^[A-Z]/.test(message);
}

const ARTICLE: Record<string, string> = {
  string: "a string",
  number: "a number",
  int: "an integer",
  boolean: "true or false",
  object: "a map",
  record: "a map",
  array: "a list",
  tuple: "a list",
  null: "empty",
  bigint: "an integer",
};

function genericMessage(iss: Issue, last: PathKey | undefined): string {
  switch (iss.code) {
    case "invalid_type":
      return `must be ${ARTICLE[iss.expected] ?? iss.expected}, got ${show(iss.input)}`;
    case "invalid_value": {
      const values = iss.values.map(String);
      return suggest(`invalid ${typeof last === "string" ? `${last} ` : "value "}${show(iss.input)}`, String(iss.input), values);
    }
    case "too_small":
      return bound("at least", iss.origin, Number(iss.minimum), iss.inclusive, iss.input);
    case "too_big":
      return bound("at most", iss.origin, Number(iss.maximum), iss.inclusive, iss.input);
    case "invalid_format":
      return `invalid ${typeof last === "string" ? `${last} ` : ""}${show(iss.input)}: expected ${iss.pattern ? `text matching ${iss.pattern}` : `a valid ${iss.format}`}`;
    case "not_multiple_of":
      return `must be a multiple of ${iss.divisor}, got ${show(iss.input)}`;
    default:
      return iss.message.charAt(0).toLowerCase() + iss.message.slice(1).replace(/\.$/, "");
  }
}

function bound(word: string, origin: string, n: number, inclusive: boolean | undefined, input: unknown): string {
  if (origin === "string") return n === 1 && word === "at least" ? "must not be empty" : `must be ${word} ${n} characters long`;
  if (origin === "array" || origin === "set") return `must have ${word} ${n} item${n === 1 ? "" : "s"}, got ${Array.isArray(input) ? input.length : show(input)}`;
  if (inclusive === false && n === 0) return `must be ${word === "at least" ? "positive" : "negative"}, got ${show(input)}`;
  const op = inclusive === false ? (word === "at least" ? "greater than" : "less than") : word;
  return `must be ${op} ${n}, got ${show(input)}`;
}

/** The keys of the object schema at `path` inside `schema`, looking through optional, default, pipe, lazy … */
function knownKeysAt(schema: ZodType | undefined, path: readonly PathKey[]): string[] {
  let def: Def | undefined = schema?.def;
  for (let i = 0; def && i <= path.length; ) {
    const inner = def.innerType ?? def.in ?? def.getter?.();
    if (inner) def = inner.def;
    else if (i === path.length) return def.shape ? Object.keys(def.shape) : [];
    else {
      const next = def.shape?.[String(path[i])] ?? def.element ?? def.valueType;
      def = next?.def;
      i++;
    }
  }
  return [];
}
