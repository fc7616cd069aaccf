// Secrets in a suite's `env:` stay out of everything gpucheck writes or prints: results.json, junit.xml,
// report.html, the summary, the suite copies in the run directory, its own logs and `gpucheck plan`.
// The value still reaches the ranks; only the record of it is `***`.
//
// A variable is secret when its name holds one of SECRET_WORDS (any case, anywhere in the name: a
// word part counts, so MONKEY and KEYBOARD_LAYOUT are redacted too; hiding a harmless value costs a
// line of a report, showing a secret costs the secret), or when the suite names it in `redact:`.
import type { Suite } from "./types.ts";

export const REDACTED = "***";

export const SECRET_WORDS = ["TOKEN", "SECRET", "PASSWORD", "PASSWD", "KEY", "CREDENTIAL"] as const;

/**
 * Values shorter than this are replaced only where their name is next to them (an env map, NAME=value):
 * replacing "1" or "on" in free text would garble every line and hide nothing.
 */
export const MIN_SCRUBBED = 4;

export function looksSecret(name: string): boolean {
  const upper = name.toUpperCase();
  return SECRET_WORDS.some((w) => upper.includes(w));
}

/** The secret variables of a run: their names, and their values as written in any test's env. */
export interface Redaction {
  names: ReadonlySet<string>;
  /** distinct non-empty values, longest first (a value inside another is replaced after it) */
  values: readonly string[];
}

export const NO_REDACTION: Redaction = { names: new Set(), values: [] };

/** What a suite's env holds that must not be written: names that look secret, and its `redact:` list. */
export function redactionOf(suite: Pick<Suite, "tests"> & { redact?: readonly string[] }): Redaction {
  const listed = new Set(suite.redact ?? []);
  const names = new Set<string>(listed);
  const values = new Set<string>();
  for (const t of suite.tests) {
    for (const [k, v] of Object.entries(t.env)) {
      if (!listed.has(k) && !looksSecret(k)) continue;
      names.add(k);
      if (v !== "" && v !== REDACTED) values.add(v);
    }
  }
  return { names, values: [...values].sort((a, b) => b.length - a.length) };
}

/** The secret names among an env's, sorted: what `Launch.secret` carries. */
export function secretNames(env: Readonly<Record<string, string>>, redact: readonly string[] = []): string[] {
  return Object.keys(env)
    .filter((k) => redact.includes(k) || looksSecret(k))
    .sort();
}

/** An env map with the secret values replaced. */
export function redactEnv(env: Readonly<Record<string, string>>, names: ReadonlySet<string> | readonly string[]): Record<string, string> {
  const has = (k: string) => (Array.isArray(names) ? names.includes(k) : (names as ReadonlySet<string>).has(k));
  return Object.fromEntries(Object.entries(env).map(([k, v]) => [k, has(k) ? REDACTED : v]));
}

/** The forms a value takes in what gpucheck writes: as is, inside POSIX single quotes, inside a JSON string. */
function forms(value: string): string[] {
  const all = [value, value.replace(/'/g, `'\\''`), JSON.stringify(value).slice(1, -1)];
  return [...new Set(all)].filter((f) => f.length >= MIN_SCRUBBED);
}

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/**
 * Free text (a script, a message, a manifest's YAML): `NAME=value` and `NAME: value` of a secret name
 * become `NAME=***` (the value up to the end of its quotes or word), and any secret value of
 * MIN_SCRUBBED characters or more becomes `***` wherever it stands; so does the value line under a
 * Kubernetes env entry's `name: NAME` (`assignments: false`: only the values, for a suite's YAML,
 * where `NAME: *anchor` is an alias to keep).
 */
export function scrubText(text: string, r: Redaction, opts: { assignments?: boolean } = {}): string {
  if (!r.names.size) return text;
  let out = text;
  for (const v of r.values) for (const f of forms(v)) out = out.split(f).join(REDACTED);
  if (opts.assignments === false) return out;
  const names = [...r.names].map(escapeRe).join("|");
  // NAME='it'\''s' · NAME="…" · NAME=word, after a word boundary (export NAME=…, -e NAME=…, NAME: …)
  const assign = new RegExp(`(?<![A-Za-z0-9_])(${names})(=|: )((?:'[^']*'(?:\\\\'(?:'[^']*')?)*)|"(?:[^"\\\\]|\\\\.)*"|[^\\s;&|)'"]+)`, "g");
  const kept = (v: string) => v === REDACTED || v === `'${REDACTED}'` || v === `"${REDACTED}"`;
  out = out.replace(assign, (_m, name: string, sep: string, value: string) => `${name}${sep}${kept(value) ? value : REDACTED}`);
  // a Kubernetes env entry written as YAML: `- name: NAME` and, on the next line, `value: …`
  const entry = new RegExp(`(name: ["']?(?:${names})["']?[ \t]*\r?\n[ \t]*value: )([^\n]*)`, "g");
  return out.replace(entry, (_m, head: string, value: string) => `${head}${kept(value.trim()) ? value : `"${REDACTED}"`}`);
}

/**
 * A copy of plain data (a plan, a rendered manifest) with every secret redacted: a property named
 * like a secret variable holding text, a `{ name, value }` pair (Kubernetes env), a `NAME=value`
 * string (the Docker API's Env), and the values wherever else they stand (scrubText).
 */
export function redactDeep<T>(data: T, r: Redaction): T {
  if (!r.names.size) return data;
  const walk = (v: unknown): unknown => {
    if (typeof v === "string") {
      const eq = v.indexOf("=");
      if (eq > 0 && r.names.has(v.slice(0, eq))) return `${v.slice(0, eq + 1)}${REDACTED}`;
      return scrubText(v, r);
    }
    if (Array.isArray(v)) return v.map(walk);
    if (v === null || typeof v !== "object") return v;
    const o = v as Record<string, unknown>;
    const pair = typeof o.name === "string" && r.names.has(o.name) && typeof o.value === "string";
    return Object.fromEntries(Object.entries(o).map(([k, x]) => [k, (pair && k === "value") || (r.names.has(k) && typeof x === "string") ? REDACTED : walk(x)]));
  };
  return walk(data) as T;
}
