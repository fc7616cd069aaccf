// `extends:` — a child suite over its parent, keeping for every merged value the file and path it
// came from, so a problem found in the merged suite still points at the line that caused it.
//
// Rules (JSON Merge Patch, RFC 7386, plus tests by name):
//   - maps merge key by key, the child winning; `null` in the child deletes the parent's key;
//   - `tests` merge by name: a child test with a parent's name overrides it field by field,
//     new names are appended, `remove: [names]` drops parent tests;
//   - each `expect` entry is replaced whole (a child's `busbw: { min: 300 GB/s }` does not keep
//     the parent's max), and `null` drops the parent's threshold;
//   - `redact` lists add up: a child names more secrets, it cannot un-redact its parent's;
//   - `extends` and `remove` apply to one level and are not inherited.
import type { PathKey } from "../core/issues.ts";

export interface Origin {
  /** index of the file in the extends chain: 0 = the file the user named */
  file: number;
  path: PathKey[];
}

/** Where a value of the merged suite was written; children for maps and lists. */
export interface Prov {
  origin: Origin;
  children?: Map<string, Prov>;
}

export interface Tracked {
  value: unknown;
  prov: Prov;
}

const NOT_INHERITED = new Set(["extends", "remove"]);

export function track(value: unknown, file: number, path: PathKey[] = []): Tracked {
  return { value, prov: new FileProv({ file, path }, value) };
}

/**
 * The provenance of a value as one file wrote it. Its children are made when first asked for: a
 * suite without `extends` and without problems asks for none, and a merge only for the levels it
 * crosses. The value's containers are not changed before then (keepEnvAsWritten changes scalars).
 */
class FileProv implements Prov {
  #children?: Map<string, Prov>;
  #value: unknown;
  constructor(
    readonly origin: Origin,
    value: unknown,
  ) {
    this.#value = value;
  }

  get children(): Map<string, Prov> | undefined {
    const value = this.#value;
    if (this.#children || !(isMap(value) || Array.isArray(value))) return this.#children;
    this.#children = new Map();
    const { file, path } = this.origin;
    for (const [k, v] of entries(value)) this.#children.set(String(k), new FileProv({ file, path: [...path, k] }, v));
    return this.#children;
  }
}

/** The origin of the deepest tracked ancestor of `path`, and the part of `path` below it. */
export function originOf(prov: Prov, path: readonly PathKey[]): { origin: Origin; rest: PathKey[] } {
  let p = prov;
  for (let i = 0; i < path.length; i++) {
    const next = p.children?.get(String(path[i]));
    if (!next) return { origin: p.origin, rest: path.slice(i) };
    p = next;
  }
  return { origin: p.origin, rest: [] };
}

/** `parent` with `child` applied; `remove` names parent tests to drop (already checked). */
export function mergeSuites(parent: Tracked, child: Tracked, remove: readonly string[]): Tracked {
  const out = patch(parent, child, (key, p, c) => (key === "tests" ? mergeTests(p, c, remove) : key === "redact" ? mergeRedact(p, c) : undefined));
  if (remove.length && isMap(child.value) && !("tests" in child.value) && isMap(out.value)) {
    // a child that only removes tests
    const kept = mergeTests(field(parent, "tests"), { value: [], prov: { origin: child.prov.origin, children: new Map() } }, remove);
    out.value.tests = kept.value;
    out.prov.children?.set("tests", kept.prov);
  }
  for (const key of NOT_INHERITED) {
    if (isMap(out.value)) delete out.value[key];
    out.prov.children?.delete(key);
  }
  return out;
}

function mergeTests(parent: Tracked, child: Tracked, remove: readonly string[]): Tracked {
  if (!Array.isArray(parent.value) || !Array.isArray(child.value)) return child;
  const items: Tracked[] = parent.value
    .map((v, i) => ({ value: v, prov: parent.prov.children!.get(String(i))! }))
    .filter((t) => !(isMap(t.value) && remove.includes(t.value.name as string)));
  child.value.forEach((v, i) => {
    const c = { value: v, prov: child.prov.children!.get(String(i))! };
    const at = isMap(v) ? items.findIndex((t) => isMap(t.value) && typeof v.name === "string" && t.value.name === v.name) : -1;
    if (at === -1) items.push(c);
    else items[at] = patch(items[at], c, (key, p, e) => (key === "expect" ? mergeExpect(p, e) : undefined));
  });
  const prov: Prov = { origin: child.prov.origin, children: new Map(items.map((t, i) => [String(i), t.prov])) };
  return { value: items.map((t) => t.value), prov };
}

/** Both lists, the parent's names first; anything but two lists is the child's (the schema reports it). */
function mergeRedact(p: Tracked, c: Tracked): Tracked {
  if (!Array.isArray(p.value) || !Array.isArray(c.value)) return c;
  const items = [...p.value.map((v, i) => ({ v, prov: p.prov.children?.get(String(i)) ?? p.prov }))];
  c.value.forEach((v, i) => {
    if (!items.some((x) => x.v === v)) items.push({ v, prov: c.prov.children?.get(String(i)) ?? c.prov });
  });
  return { value: items.map((x) => x.v), prov: { origin: c.prov.origin, children: new Map(items.map((x, i) => [String(i), x.prov])) } };
}

function mergeExpect(p: Tracked, c: Tracked): Tracked {
  return patch(p, c, (_key, _p, entry) => entry);
}

/** RFC 7386 merge of `child` over `parent`; `special` may take over merging one key. */
function patch(parent: Tracked, child: Tracked, special: (key: string, p: Tracked, c: Tracked) => Tracked | undefined = () => undefined): Tracked {
  if (!isMap(parent.value) || !isMap(child.value)) return child;
  const value: Record<string, unknown> = { ...parent.value };
  const children = new Map(parent.prov.children);
  for (const [key, v] of Object.entries(child.value)) {
    if (v === null) {
      delete value[key];
      children.delete(key);
      continue;
    }
    const p = field(parent, key);
    const c = field(child, key);
    const merged = key in parent.value ? (special(key, p, c) ?? patch(p, c)) : c;
    value[key] = merged.value;
    children.set(key, merged.prov);
  }
  return { value, prov: { origin: child.prov.origin, children } };
}

function field(t: Tracked, key: string): Tracked {
  const value = isMap(t.value) ? t.value[key] : undefined;
  return { value, prov: t.prov.children?.get(key) ?? t.prov };
}

export function isMap(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function entries(v: Record<string, unknown> | unknown[]): Array<[PathKey, unknown]> {
  return Array.isArray(v) ? v.map((x, i) => [i, x]) : Object.entries(v);
}
