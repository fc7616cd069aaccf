// Named slots for values only a run learns (run id, master port, addresses, job ids): a rendered
// manifest names them as "{{name}}", `gpucheck plan` says what each will be, and the run binds
// them into that same manifest before launching it.
import { PlatformError } from "./errors.ts";

/** slot name → what the run will put there */
export type Slots = Record<string, string>;

export const slot = (name: string): string => `{{${name}}}`;

const SLOT = /\{\{([A-Za-z0-9_.:-]+)\}\}/g;

/** The slot names a value mentions, in order of first appearance. */
export function slotsIn(value: unknown): string[] {
  const found = new Set<string>();
  visit(value, (s) => {
    if (s.includes("{{")) for (const m of s.matchAll(SLOT)) found.add(m[1]!);
  });
  return [...found];
}

/**
 * The value with every slot in `values` replaced, at any depth (strings inside arrays and objects,
 * keys included). Slots not in `values` stay, so a run may bind in stages (run id first, each
 * unit's rendezvous when its host answers); `complete` then says every slot is bound.
 */
export function bindSlots<T>(value: T, values: Record<string, string | number>): T {
  return walk(value, (s) => s.replace(SLOT, (whole, name: string) => (name in values ? String(values[name]) : whole))) as T;
}

/**
 * Throws when one of the rendering's slots is left unbound: a launch must never carry one to a node.
 * Only the named slots count: a suite's own text may hold braces of its own.
 */
export function complete<T>(value: T, slots: Iterable<string>, what: string): T {
  const named = new Set(slots);
  const left = slotsIn(value).filter((n) => named.has(n));
  if (left.length) throw new PlatformError(`internal error: ${what} still has unbound slot(s) ${left.map(slot).join(", ")}`);
  return value;
}

/** Every string of the value (keys too), in walk()'s order, without copying it: a plan's manifests are large. */
function visit(value: unknown, f: (s: string) => void): void {
  if (typeof value === "string") f(value);
  else if (Array.isArray(value)) for (const v of value) visit(v, f);
  else if (value && typeof value === "object")
    for (const [k, v] of Object.entries(value)) {
      f(k);
      visit(v, f);
    }
}

function walk(value: unknown, f: (s: string) => string): unknown {
  if (typeof value === "string") return f(value);
  if (Array.isArray(value)) return value.map((v) => walk(v, f));
  if (value && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([k, v]) => [f(k), walk(v, f)]));
  return value;
}
