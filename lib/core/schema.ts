// The subset of zod's API that checks a suite (the suite, its tests, each kind's block, the
// platforms' settings), built without zod: `gpucheck validate` and `plan` loaded zod (14 ms) and
// built and ran its schemas (most of 60 ms more) before checking a line of the suite, against a
// hello-world's 18 ms (BENCHMARKS.md, "Start-up: issue 12 item 10"). A schema here is one small
// object; parsing follows zod 4.6.7's rules for each construct (which checks run after which issue,
// which issues abort, what a missing key reports) and gives issues of zod's shape with zod's English
// messages, so lib/core/issues.ts words them as before. Import it as `z`:
// `import * as z from "../core/schema.ts"`. Workload results and results.json keep zod: they are
// parsed only when a run's output is read, and exported as JSON Schema.

// biome-ignore lint/suspicious/noExplicitAny: a schema of any output
type Any = ZodType<any>;

/** An issue as a schema raises it; finalize() turns it into an Issue. */
export interface RawIssue {
  code: string;
  path?: PropertyKey[];
  message?: string;
  input?: unknown;
  params?: Record<string, unknown>;
  continue?: boolean;
  inst?: Errs;
  schema?: Errs;
  [k: string]: unknown;
}

interface IssueBase {
  path: PropertyKey[];
  message: string;
  input?: unknown;
}

/** zod's $ZodIssue, for the codes these schemas raise */
export type Issue = IssueBase &
  (
    | { code: "invalid_type"; expected: string }
    | { code: "unrecognized_keys"; keys: string[] }
    | { code: "too_small"; minimum: number; inclusive?: boolean; origin: string }
    | { code: "too_big"; maximum: number; inclusive?: boolean; origin: string }
    | { code: "invalid_value"; values: unknown[] }
    | { code: "invalid_format"; format: string; pattern?: string }
    | { code: "invalid_union"; errors: Issue[][] }
    | { code: "invalid_key"; origin: string; issues: Issue[] }
    | { code: "not_multiple_of"; divisor: number }
    | { code: "custom"; params?: Record<string, unknown> }
  );

type ErrorFn = (iss: RawIssue) => string | { message: string } | undefined;
type Params = string | { error?: string | ErrorFn; message?: string; path?: PropertyKey[]; params?: Record<string, unknown> };

/** what carries an error map: a schema or a check */
interface Errs {
  error?: ErrorFn;
}

interface Payload {
  value: unknown;
  issues: RawIssue[];
  aborted?: boolean;
}

export interface ParseContext {
  /** keep each issue's input (zod's reportInput) */
  reportInput?: boolean;
}

interface Check extends Errs {
  check(p: Payload): void;
  /** runs even after an issue that does not abort explicitly (zod's length checks) */
  when?(p: Payload): boolean;
}

type Optin = "optional" | "defaulted" | undefined;

export interface Def {
  type: string;
  error?: ErrorFn;
  checks?: Check[];
  description?: string;
  // what lib/core/issues.ts walks to find the keys of a map, named as zod names them
  shape?: ZodRawShape;
  strict?: boolean;
  innerType?: Any;
  in?: Any;
  out?: Any;
  getter?: () => Any;
  element?: Any;
  keyType?: Any;
  valueType?: Any;
  partial?: boolean;
  values?: readonly unknown[];
  options?: readonly Any[];
  defaultValue?: unknown;
  transform?: (v: unknown, ctx: TransformContext) => unknown;
}

export interface TransformContext {
  value: unknown;
  issues: RawIssue[];
  addIssue(issue: string | RawIssue): void;
}

export type SafeParseResult<O> = { success: true; data: O; error?: undefined } | { success: false; data?: undefined; error: SchemaError };

export class SchemaError extends Error {
  constructor(readonly issues: Issue[]) {
    super(JSON.stringify(issues, (_k, v) => (typeof v === "bigint" ? String(v) : v), 2));
    this.name = "SchemaError";
  }
}

/** zod's z.NEVER: what a transform returns after reporting an issue */
export const NEVER = Object.freeze({ status: "aborted" }) as never;

const normalize = (params?: Params): { error?: ErrorFn; path?: PropertyKey[]; params?: Record<string, unknown> } => {
  if (params === undefined) return {};
  if (typeof params === "string") return { error: () => params };
  const { message, error, ...rest } = params;
  const e = message ?? error;
  return { ...rest, error: typeof e === "string" ? () => e : e };
};

export class ZodType<O = unknown> {
  declare readonly _output: O;
  constructor(readonly def: Def) {}

  get description(): string | undefined {
    return this.def.description;
  }

  /** a copy with one more check */
  protected with(check: Check): this {
    const copy = Object.create(Object.getPrototypeOf(this)) as this;
    (copy as { def: Def }).def = { ...this.def, checks: [...(this.def.checks ?? []), check] };
    return copy;
  }

  optional(): ZodOptional<this> {
    return new ZodOptional({ type: "optional", innerType: this });
  }
  nullable(): ZodType<O | null> {
    return new ZodType({ type: "nullable", innerType: this });
  }
  default(value: Exclude<O, undefined>): ZodType<Exclude<O, undefined>> {
    return new ZodType({ type: "default", innerType: this, defaultValue: value });
  }
  transform<T>(fn: (value: O, ctx: TransformContext) => T): ZodType<T> {
    return new ZodType({ type: "pipe", in: this, out: new ZodType({ type: "transform", transform: fn as Def["transform"] }) });
  }
  describe(description: string): this {
    const copy = Object.create(Object.getPrototypeOf(this)) as this;
    (copy as { def: Def }).def = { ...this.def, description };
    return copy;
  }
  refine(fn: (value: O) => unknown, params?: Params): this {
    const p = normalize(params);
    const check: Check = {
      error: p.error,
      check: (payload) => {
        if (fn(payload.value as O)) return;
        payload.issues.push({ code: "custom", input: payload.value, inst: check, path: [...(p.path ?? [])], continue: true, ...(p.params && { params: p.params }) });
      },
    };
    return this.with(check);
  }

  // numbers
  int(params?: Params): this {
    const check: Check = {
      ...normalize(params),
      check: (p) => {
        const input = p.value as number;
        if (!Number.isInteger(input)) {
          p.issues.push({ expected: "int", format: "safeint", code: "invalid_type", continue: false, input, inst: check });
          return;
        }
        if (!Number.isSafeInteger(input)) {
          const big = input > 0;
          p.issues.push({
            input,
            code: big ? "too_big" : "too_small",
            [big ? "maximum" : "minimum"]: big ? Number.MAX_SAFE_INTEGER : Number.MIN_SAFE_INTEGER,
            note: "Integers must be within the safe integer range.",
            inst: check,
            origin: "int",
            inclusive: true,
            continue: true,
          });
        }
      },
    };
    return this.with(check);
  }
  positive(params?: Params): this {
    return this.with(greater(0, false, params));
  }
  nonnegative(params?: Params): this {
    return this.with(greater(0, true, params));
  }
  /** numbers: at least; strings and lists: at least this long */
  min(n: number, params?: Params): this {
    return this.with(this.def.type === "number" ? greater(n, true, params) : length("min", n, params));
  }
  /** numbers: at most; strings and lists: at most this long */
  max(n: number, params?: Params): this {
    return this.with(this.def.type === "number" ? less(n, params) : length("max", n, params));
  }

  // strings
  regex(pattern: RegExp, params?: Params): this {
    const check: Check = {
      ...normalize(params),
      check: (p) => {
        pattern.lastIndex = 0;
        if (pattern.test(p.value as string)) return;
        p.issues.push({ origin: "string", code: "invalid_format", format: "regex", input: p.value, pattern: pattern.toString(), inst: check, continue: true });
      },
    };
    return this.with(check);
  }
  trim(): this {
    return this.with({
      check: (p) => {
        p.value = (p.value as string).trim();
      },
    });
  }

  safeParse(value: unknown, ctx: ParseContext = {}): SafeParseResult<O> {
    const r = run(this, { value, issues: [] });
    if (r.issues.length === 0) return { success: true, data: r.value as O };
    return { success: false, error: new SchemaError(r.issues.map((i) => finalize(i, ctx))) };
  }
  parse(value: unknown, ctx?: ParseContext): O {
    const r = this.safeParse(value, ctx);
    if (!r.success) throw r.error;
    return r.data;
  }
}

function greater(value: number, inclusive: boolean, params?: Params): Check {
  const check: Check = {
    ...normalize(params),
    check: (p) => {
      const v = p.value as number;
      if (inclusive ? v >= value : v > value) return;
      p.issues.push({ origin: "number", code: "too_small", minimum: value, input: v, inclusive, inst: check, continue: true });
    },
  };
  return check;
}

function less(value: number, params?: Params): Check {
  const check: Check = {
    ...normalize(params),
    check: (p) => {
      const v = p.value as number;
      if (v <= value) return;
      p.issues.push({ origin: "number", code: "too_big", maximum: value, input: v, inclusive: true, inst: check, continue: true });
    },
  };
  return check;
}

/** strings count code points, as zod does */
function length(bound: "min" | "max", n: number, params?: Params): Check {
  const check: Check = {
    ...normalize(params),
    when: (p) => p.value !== null && p.value !== undefined && (p.value as { length?: unknown }).length !== undefined,
    check: (p) => {
      const input = p.value as string | unknown[];
      const len = typeof input === "string" ? codePoints(input) : input.length;
      if (bound === "min" ? len >= n : len <= n) return;
      const origin = Array.isArray(input) ? "array" : typeof input === "string" ? "string" : "unknown";
      p.issues.push({ origin, code: bound === "min" ? "too_small" : "too_big", [bound === "min" ? "minimum" : "maximum"]: n, inclusive: true, input, inst: check, continue: true });
    },
  };
  return check;
}

function codePoints(s: string): number {
  let n = s.length;
  for (let i = 0; i < s.length - 1; i++) {
    if ((s.charCodeAt(i) & 0xfc00) === 0xd800 && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      n--;
      i++;
    }
  }
  return n;
}

export class ZodOptional<T extends Any = Any> extends ZodType<output<T> | undefined> {
  unwrap(): T {
    return this.def.innerType as T;
  }
}

export class ZodArray<T extends Any = Any> extends ZodType<output<T>[]> {
  get element(): T {
    return this.def.element as T;
  }
}

export class ZodRecord<K extends Any = Any, V extends Any = Any> extends ZodType<Record<output<K> & PropertyKey, output<V>>> {
  get keyType(): K {
    return this.def.keyType as K;
  }
  get valueType(): V {
    return this.def.valueType as V;
  }
}

export type ZodRawShape = { [k: string]: Any };

type OptionalKeys<S extends ZodRawShape> = { [K in keyof S]: undefined extends output<S[K]> ? K : never }[keyof S];
type Flatten<T> = { [K in keyof T]: T[K] } & {};
export type ObjectOutput<S extends ZodRawShape> = Flatten<{ [K in Exclude<keyof S, OptionalKeys<S>>]: output<S[K]> } & { [K in OptionalKeys<S>]?: output<S[K]> }>;

export class ZodObject<S extends ZodRawShape = ZodRawShape> extends ZodType<ObjectOutput<S>> {
  get shape(): S {
    return this.def.shape as S;
  }
  /** unknown keys become an issue */
  strict(): ZodObject<S> {
    return new ZodObject({ ...this.def, strict: true });
  }
}

export type output<T> = T extends { readonly _output: infer O } ? O : never;
export type { output as infer };

export const string = (params?: Params) => new ZodType<string>({ type: "string", ...normalize(params) });
export const number = (params?: Params) => new ZodType<number>({ type: "number", ...normalize(params) });
export const boolean = (params?: Params) => new ZodType<boolean>({ type: "boolean", ...normalize(params) });
export const unknown = () => new ZodType<unknown>({ type: "unknown" });

export const literal = <const T extends string | number | boolean | null>(value: T, params?: Params) => new ZodType<T>({ type: "literal", values: [value], ...normalize(params) });

// `enum` is a reserved word: exported under zod's name below
export const _enum = <const T extends readonly [string, ...string[]]>(values: T, params?: Params) => new ZodType<T[number]>({ type: "enum", values, ...normalize(params) });
export { _enum as enum };

export const union = <const T extends readonly [Any, ...Any[]]>(options: T, params?: Params) => new ZodType<output<T[number]>>({ type: "union", options, ...normalize(params) });

export const array = <T extends Any>(element: T, params?: Params) => new ZodArray<T>({ type: "array", element, ...normalize(params) });

export const record = <K extends Any, V extends Any>(keyType: K, valueType: V, params?: Params) =>
  new ZodRecord<K, V>({ type: "record", keyType, valueType, ...normalize(params) });

export const partialRecord = <K extends Any, V extends Any>(keyType: K, valueType: V, params?: Params) =>
  new ZodType<Partial<Record<output<K> & PropertyKey, output<V>>>>({ type: "record", keyType, valueType, partial: true, ...normalize(params) });

export const object = <S extends ZodRawShape>(shape: S, params?: Params) => new ZodObject<S>({ type: "object", shape, ...normalize(params) });
export const strictObject = <S extends ZodRawShape>(shape: S, params?: Params) => new ZodObject<S>({ type: "object", shape, strict: true, ...normalize(params) });

/** built on first parse (or first walk by issues.ts) */
export const lazy = <T extends Any>(getter: () => T) => {
  let inner: T | undefined;
  return new ZodType<output<T>>({ type: "lazy", getter: () => (inner ??= getter()) });
};

// ---- parsing, as zod 4.6.7's core does it

function aborted(p: Payload, start = 0): boolean {
  if (p.aborted) return true;
  for (let i = start; i < p.issues.length; i++) if (p.issues[i]!.continue !== true) return true;
  return false;
}

function explicitlyAborted(p: Payload): boolean {
  return p.aborted === true || p.issues.some((i) => i.continue === false);
}

function prefix(key: PropertyKey, issues: RawIssue[]): RawIssue[] {
  for (const iss of issues) (iss.path ??= []).unshift(key);
  return issues;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

function isPlainObject(o: unknown): o is Record<string, unknown> {
  if (!isObject(o)) return false;
  const ctor = o.constructor;
  if (ctor === undefined || typeof ctor !== "function") return true;
  const prot = ctor.prototype;
  if (!isObject(prot)) return false;
  return Object.hasOwn(prot, "isPrototypeOf");
}

function shallowClone<T>(v: T): T {
  if (isPlainObject(v)) return { ...v } as T;
  if (Array.isArray(v)) return [...v] as T;
  return v;
}

// what a key's schema makes of its absence, asked for every key of every map parsed: computed once
// per schema (a lazy one is built to answer)
const optins = new WeakMap<Any, Optin>();
const optouts = new WeakMap<Any, "optional" | undefined>();

function optin(s: Any): Optin {
  if (optins.has(s)) return optins.get(s);
  const o = optinOf(s);
  optins.set(s, o);
  return o;
}

function optout(s: Any): "optional" | undefined {
  if (optouts.has(s)) return optouts.get(s);
  const o = optoutOf(s);
  optouts.set(s, o);
  return o;
}

function optinOf(s: Any): Optin {
  const d = s.def;
  switch (d.type) {
    case "optional":
      return optin(d.innerType!) === "defaulted" ? "defaulted" : "optional";
    case "default":
      return "defaulted";
    case "transform":
      return "optional";
    case "nullable":
    case "lazy":
      return optin(d.innerType ?? d.getter!());
    case "pipe":
      return optin(d.in!);
    case "union":
      return d.options!.some((o) => optin(o) === "defaulted") ? "defaulted" : d.options!.some((o) => optin(o) !== undefined) ? "optional" : undefined;
    default:
      return undefined;
  }
}

function optoutOf(s: Any): "optional" | undefined {
  const d = s.def;
  switch (d.type) {
    case "optional":
      return "optional";
    case "nullable":
    case "lazy":
      return optout(d.innerType ?? d.getter!());
    case "pipe":
      return optout(d.out!);
    case "union":
      return d.options!.some((o) => optout(o) === "optional") ? "optional" : undefined;
    default:
      return undefined;
  }
}

function run(s: Any, p: Payload): Payload {
  const r = parseOwn(s, p);
  const checks = s.def.checks;
  if (!checks) return r;
  let isAborted = aborted(r);
  for (const ch of checks) {
    if (ch.when) {
      if (explicitlyAborted(r) || !ch.when(r)) continue;
    } else if (isAborted) continue;
    const n = r.issues.length;
    ch.check(r);
    if (r.issues.length === n) continue;
    for (let i = n; i < r.issues.length; i++) r.issues[i]!.schema ??= s.def;
    if (!isAborted) isAborted = aborted(r, n);
  }
  return r;
}

function parseOwn(s: Any, p: Payload): Payload {
  const d = s.def;
  const input = p.value;
  const fail = (iss: RawIssue) => {
    p.issues.push({ ...iss, input, inst: d });
    return p;
  };
  switch (d.type) {
    case "string":
      return typeof input === "string" ? p : fail({ expected: "string", code: "invalid_type" });
    case "number": {
      if (typeof input === "number" && Number.isFinite(input)) return p;
      const received = typeof input === "number" ? (Number.isNaN(input) ? "NaN" : String(input)) : undefined;
      return fail({ expected: "number", code: "invalid_type", ...(received && { received }) });
    }
    case "boolean":
      return typeof input === "boolean" ? p : fail({ expected: "boolean", code: "invalid_type" });
    case "unknown":
      return p;
    case "literal":
    case "enum":
      return d.values!.includes(input) ? p : fail({ code: "invalid_value", values: d.values });
    case "optional":
      if (input === undefined) {
        if (optin(d.innerType!) !== "defaulted") return p;
        const r = run(d.innerType!, { value: undefined, issues: [] });
        p.value = r.issues.length ? undefined : r.value;
        return p;
      }
      return run(d.innerType!, p);
    case "nullable":
      return input === null ? p : run(d.innerType!, p);
    case "default": {
      if (input === undefined) {
        p.value = shallowClone(d.defaultValue);
        return p;
      }
      const r = run(d.innerType!, p);
      if (r.value === undefined) r.value = shallowClone(d.defaultValue);
      return r;
    }
    case "lazy":
      return run(d.getter!(), p);
    case "pipe": {
      const left = run(d.in!, p);
      if (left.issues.some((i) => i.code !== "unrecognized_keys")) {
        left.aborted = true;
        return left;
      }
      return run(d.out!, { value: left.value, issues: left.issues });
    }
    case "transform": {
      const ctx: TransformContext = {
        value: p.value,
        issues: p.issues,
        addIssue: (issue) => {
          if (typeof issue === "string") p.issues.push({ message: issue, code: "custom", input: p.value, inst: d });
          else p.issues.push({ ...issue, code: issue.code ?? "custom", input: "input" in issue ? issue.input : p.value, inst: issue.inst ?? d });
        },
      };
      p.value = d.transform!(p.value, ctx);
      return p;
    }
    case "array": {
      if (!Array.isArray(input)) return fail({ expected: "array", code: "invalid_type" });
      const out: unknown[] = Array(input.length);
      p.value = out;
      for (let i = 0; i < input.length; i++) {
        const r = run(d.element!, { value: input[i], issues: [] });
        if (r.issues.length) p.issues.push(...prefix(i, r.issues));
        out[i] = r.value;
      }
      return p;
    }
    case "object":
      return parseObject(s, p);
    case "record":
      return parseRecord(s, p);
    case "union": {
      const results: Payload[] = [];
      for (const o of d.options!) {
        const r = run(o, { value: input, issues: [] });
        if (r.issues.length === 0) return r;
        results.push(r);
      }
      const nonaborted = results.filter((r) => !aborted(r));
      if (nonaborted.length === 1) {
        p.value = nonaborted[0]!.value;
        return nonaborted[0]!;
      }
      return fail({ code: "invalid_union", errors: results.map((r) => r.issues.map((i) => finalize(i, {}))) });
    }
    default:
      throw new Error(`schema: unknown type ${d.type}`);
  }
}

function parseObject(s: Any, p: Payload): Payload {
  const d = s.def;
  const input = p.value;
  if (!isObject(input)) {
    p.issues.push({ expected: "object", code: "invalid_type", input, inst: d });
    return p;
  }
  const out: Record<string, unknown> = {};
  p.value = out;
  const shape = d.shape!;
  for (const key of Object.keys(shape)) {
    if (key === "__proto__") continue;
    const el = shape[key]!;
    // zod's handlePropertyResult; zod parses an absent optional key too, only to drop the result
    const present = key in input;
    const oi = optin(el);
    const optionalOut = optout(el) === "optional";
    if (!present && optionalOut && oi === "optional") continue;
    const r = run(el, { value: input[key], issues: [] });
    if (r.issues.length) {
      if (oi !== undefined && optionalOut && !present) continue;
      p.issues.push(...prefix(key, r.issues));
    }
    if (!present && oi === undefined) {
      if (!r.issues.length) p.issues.push({ code: "invalid_type", expected: "nonoptional", input: undefined, path: [key] });
      continue;
    }
    if (r.value === undefined) {
      if (present || (oi === "defaulted" && !optionalOut)) out[key] = undefined;
    } else out[key] = r.value;
  }
  if (d.strict) {
    const unrecognized: string[] = [];
    for (const key in input) if (!Object.hasOwn(shape, key)) unrecognized.push(key);
    if (unrecognized.length) p.issues.push({ code: "unrecognized_keys", keys: unrecognized, input, inst: d, continue: true });
  }
  return p;
}

function parseRecord(s: Any, p: Payload): Payload {
  const d = s.def;
  const input = p.value;
  if (!isPlainObject(input)) {
    p.issues.push({ expected: "record", code: "invalid_type", input, inst: d });
    return p;
  }
  const out: Record<string, unknown> = {};
  p.value = out;
  const values = d.keyType!.def.type === "enum" ? d.keyType!.def.values : undefined;
  let unrecognized: string[] | undefined;
  if (values && !d.partial) {
    // every key of the enum, in its order; others are unrecognized
    for (const key of values as string[]) {
      if (key === "__proto__") continue;
      const r = run(d.valueType!, { value: input[key], issues: [] });
      if (r.issues.length) p.issues.push(...prefix(key, r.issues));
      out[key] = r.value;
    }
    for (const key in input) if (!values.includes(key)) (unrecognized ??= []).push(key);
  } else {
    for (const key of Object.keys(input)) {
      if (key === "__proto__") continue;
      const k = run(d.keyType!, { value: key, issues: [] });
      if (k.issues.length) {
        if (values) (unrecognized ??= []).push(key);
        else p.issues.push({ code: "invalid_key", origin: "record", issues: k.issues.map((i) => finalize(i, {})), input: key, path: [key], inst: d });
        continue;
      }
      const outKey = k.value as string;
      if (outKey === "__proto__") continue;
      const r = run(d.valueType!, { value: input[key], issues: [] });
      if (r.issues.length) p.issues.push(...prefix(key, r.issues));
      out[outKey] = r.value;
    }
  }
  if (unrecognized?.length) p.issues.push({ code: "unrecognized_keys", input, inst: d, keys: unrecognized, continue: true });
  return p;
}

const unwrap = (m: string | { message: string } | undefined) => (typeof m === "string" ? m : m?.message);

function finalize(iss: RawIssue, ctx: ParseContext): Issue {
  const schema = iss.schema ?? iss.inst;
  const message =
    iss.message ||
    (unwrap(iss.inst?.error?.(iss)) ?? (schema !== iss.inst ? unwrap(schema?.error?.(iss)) : undefined) ?? englishMessage(iss as unknown as Issue) ?? "Invalid input");
  const full: Record<string, unknown> = {};
  for (const k of Object.keys(iss)) {
    if (k === "inst" || k === "schema" || k === "continue" || k === "input" || k === "__proto__") continue;
    full[k] = iss[k];
  }
  full.path ??= [];
  full.message = message;
  if (ctx.reportInput) full.input = iss.input;
  return full as unknown as Issue;
}

// zod's English messages (zod/v4/locales/en.js), for the issues these schemas raise
const SIZING: Record<string, string> = { string: "characters", file: "bytes", array: "items", set: "items", map: "entries" };

function typeName(type: string, input?: unknown): string {
  if (type === "number" && typeof input === "number" && !Number.isFinite(input)) return String(input);
  return type === "nan" ? "NaN" : type;
}

function parsedType(data: unknown): string {
  if (typeof data === "number") return Number.isNaN(data) ? "nan" : "number";
  if (typeof data === "object") {
    if (data === null) return "null";
    if (Array.isArray(data)) return "array";
    if (Object.getPrototypeOf(data) !== Object.prototype && "constructor" in data && data.constructor) return (data.constructor as { name: string }).name;
  }
  return typeof data;
}

const primitive = (v: unknown) => (typeof v === "bigint" ? `${v}n` : typeof v === "string" ? `"${v}"` : `${v}`);

function englishMessage(issue: Issue): string {
  switch (issue.code) {
    case "invalid_type":
      return `Invalid input: expected ${typeName(issue.expected)}, received ${typeName(parsedType(issue.input), issue.input)}`;
    case "invalid_value":
      if (issue.values.length === 1) return `Invalid input: expected ${primitive(issue.values[0])}`;
      return `Invalid option: expected one of ${issue.values.map(primitive).join("|")}`;
    case "too_big": {
      const adj = issue.inclusive ? "<=" : "<";
      const unit = SIZING[issue.origin];
      if (unit) return `Too big: expected ${issue.origin ?? "value"} to have ${adj}${issue.maximum.toString()} ${unit}`;
      return `Too big: expected ${issue.origin ?? "value"} to be ${adj}${issue.maximum.toString()}`;
    }
    case "too_small": {
      const adj = issue.inclusive ? ">=" : ">";
      const unit = SIZING[issue.origin];
      if (unit) return `Too small: expected ${issue.origin} to have ${adj}${issue.minimum.toString()} ${unit}`;
      return `Too small: expected ${issue.origin} to be ${adj}${issue.minimum.toString()}`;
    }
    case "invalid_format":
      return issue.format === "regex" ? `Invalid string: must match pattern ${issue.pattern}` : `Invalid ${issue.format}`;
    case "not_multiple_of":
      return `Invalid number: must be a multiple of ${issue.divisor}`;
    case "unrecognized_keys":
      return `Unrecognized key${issue.keys.length > 1 ? "s" : ""}: ${issue.keys.map(primitive).join(", ")}`;
    case "invalid_key":
      return `Invalid key in ${issue.origin}`;
    default:
      return "Invalid input";
  }
}
