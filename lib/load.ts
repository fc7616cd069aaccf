// suite file or built-in name → a fully resolved Suite, or a SuiteError carrying every problem.
//   read (load/read.ts) → YAML syntax → follow `extends` → merge with provenance (load/merge.ts)
//   → schema and cross-field checks on the merged data (load/check.ts) → positions via provenance
import type { Diagnostic } from "./errors.ts";
import { SuiteError } from "./errors.ts";
import { checkSuite } from "./load/check.ts";
import { isMap, mergeSuites, originOf, type Tracked, track } from "./load/merge.ts";
import { openSuite, type SourceFile } from "./load/read.ts";
import { closest } from "./schema/did-you-mean.ts";
import type { PathKey, Problem } from "./schema/issues.ts";
import type { Suite } from "./types.ts";
import { show } from "./units.ts";
import { diagnosticAt, locate, sourceText, syntaxDiagnostics } from "./yaml-positions.ts";

const MAX_DEPTH = 16;

export async function loadSuite(ref: string, opts: { cwd?: string } = {}): Promise<Suite> {
  const cwd = opts.cwd ?? process.cwd();
  const opened = openSuite(ref, cwd);
  if (!opened.ok) throw new SuiteError(`gpucheck: ${opened.reason}`);
  const { files, raws, diagnostics } = readChain(opened.file, cwd);
  if (diagnostics.length) throw failure(files[0], diagnostics);

  // merge from the root ancestor down to the file the user named
  let merged = track(raws.at(-1), files.length - 1);
  const problems: Array<{ file: number; path: PathKey[]; message: string; at: Problem["at"] }> = [];
  for (let i = files.length - 1; i >= 0; i--) {
    problems.push(...duplicateNames(raws[i], i, files[i]));
    if (i === files.length - 1) {
      if (raws[i].remove !== undefined) problems.push({ file: i, path: ["remove"], at: "key", message: `"remove" needs "extends": there is no parent suite to remove tests from` });
      continue;
    }
    const remove = checkRemove(raws[i].remove, merged.value, i, problems);
    merged = mergeSuites(merged, track(raws[i], i), remove);
  }
  keepEnvAsWritten(merged, files);

  const data = merged.value as Record<string, unknown>;
  const checked = checkSuite(data);
  for (const p of checked.problems) {
    // of the values involved, point at the one written in the file nearest the user's
    const { origin, rest } = (p.also ?? [])
      .map((path) => originOf(merged.prov, path))
      .filter((c) => c.rest.length === 0)
      .reduce((best, c) => (c.origin.file < best.origin.file ? c : best), originOf(merged.prov, p.path));
    problems.push({ file: origin.file, path: [...origin.path, ...rest], message: p.message, at: p.at });
  }
  const diags = problems.map((p) => ({ file: p.file, offset: locate(files[p.file].doc, p.path, p.at).offset, message: p.message }));
  if (diags.length) {
    const unique = new Map(diags.map((d) => [`${d.file}:${d.offset}:${d.message}`, d]));
    const sorted = [...unique.values()].sort((a, b) => a.file - b.file || a.offset - b.offset);
    throw failure(files[0], sorted.map((d) => at(files[d.file], d.offset, d.message)));
  }
  const source = (f: SourceFile) => ({ path: f.display, sha256: f.sha256, builtin: f.builtin });
  return { ...checked.suite, source: { ...source(files[0]), ...(files.length > 1 && { parents: files.slice(1).map(source) }) } };
}

/** The named file and every suite it extends, parsed; stops at the first link that fails. */
function readChain(first: SourceFile, cwd: string) {
  const files: SourceFile[] = [];
  const raws: Record<string, unknown>[] = [];
  const diagnostics: Diagnostic[] = [];
  for (let file: SourceFile | undefined = first; file; ) {
    files.push(file);
    diagnostics.push(...syntaxDiagnostics(file.doc, file.text, file.lines, file.display));
    if (diagnostics.length) break;
    const raw = toJS(file, diagnostics);
    if (!raw) break;
    raws.push(raw);
    const ext = raw.extends;
    file = undefined;
    if (ext === undefined) break;
    const here = files.at(-1)!;
    const where = locate(here.doc, ["extends"], "value").offset;
    if (typeof ext !== "string" || ext.trim() === "") {
      diagnostics.push(at(here, where, `"extends" must be the name of a built-in suite or a file path, got ${show(ext)}`));
    } else if (files.length > MAX_DEPTH) {
      diagnostics.push(at(here, where, `extends chain is deeper than ${MAX_DEPTH} suites`));
    } else {
      const next = openSuite(ext, cwd, here);
      const loopAt = next.ok ? files.findIndex((f) => f.id === next.file.id) : -1;
      if (!next.ok) diagnostics.push(at(here, where, `extends "${ext}" does not resolve: ${next.reason}`));
      else if (loopAt !== -1) diagnostics.push(at(here, where, `extends loop: ${[...files.slice(loopAt), files[loopAt]].map((f) => f.display).join(" → ")}`));
      else file = next.file;
    }
  }
  return { files, raws, diagnostics };
}

function toJS(file: SourceFile, diagnostics: Diagnostic[]): Record<string, unknown> | undefined {
  let raw: unknown;
  try {
    raw = file.doc.toJS({ maxAliasCount: 1000 });
  } catch (err) {
    diagnostics.push(at(file, 0, `invalid YAML: ${(err as Error).message}`));
    return undefined;
  }
  if (isMap(raw)) return raw;
  const offset = file.doc.contents?.range?.[0] ?? 0;
  diagnostics.push(at(file, offset, `a suite must be a map with keys such as "name" and "tests", got ${show(raw)}`));
  return undefined;
}

/** Two tests of one name in one file (across files, the same name means "override"). */
function duplicateNames(raw: Record<string, unknown>, file: number, src: SourceFile) {
  const seen = new Map<string, number>();
  const out: Array<{ file: number; path: PathKey[]; message: string; at: Problem["at"] }> = [];
  if (!Array.isArray(raw.tests)) return out;
  raw.tests.forEach((t, i) => {
    if (!isMap(t) || typeof t.name !== "string") return;
    const first = seen.get(t.name);
    if (first === undefined) seen.set(t.name, i);
    else {
      const line = src.lines.linePos(locate(src.doc, ["tests", first, "name"], "value").offset).line;
      out.push({ file, path: ["tests", i, "name"], at: "value", message: `duplicate test name "${t.name}": first defined at line ${line}` });
    }
  });
  return out;
}

/** `remove:` of file `file` against the tests of its (merged) parent; returns the valid names. */
function checkRemove(remove: unknown, parent: unknown, file: number, problems: Array<{ file: number; path: PathKey[]; message: string; at: Problem["at"] }>): string[] {
  if (remove === undefined) return [];
  if (!Array.isArray(remove)) {
    problems.push({ file, path: ["remove"], at: "value", message: `"remove" must be a list of test names of the parent suite, got ${show(remove)}` });
    return [];
  }
  const tests = isMap(parent) && Array.isArray(parent.tests) ? parent.tests : [];
  const names = tests.flatMap((t) => (isMap(t) && typeof t.name === "string" ? [t.name] : []));
  return remove.filter((name, i) => {
    if (typeof name === "string" && names.includes(name)) return true;
    const near = typeof name === "string" ? closest(name, names) : undefined;
    const message = `remove ${show(name)} does not name a test of the parent suite${near ? `: did you mean "${near}"?` : `: its tests are ${names.join(", ")}`}`;
    problems.push({ file, path: ["remove", i], at: "value", message });
    return false;
  });
}

/** env values written as numbers or booleans keep their text: NCCL_IB_TIMEOUT: 1.10 is "1.10". */
function keepEnvAsWritten(merged: Tracked, files: SourceFile[]): void {
  const data = merged.value;
  if (!isMap(data)) return;
  const maps: Array<[unknown, PathKey[]]> = [[isMap(data.defaults) ? data.defaults.env : undefined, ["defaults", "env"]]];
  if (Array.isArray(data.tests)) data.tests.forEach((t, i) => maps.push([isMap(t) ? t.env : undefined, ["tests", i, "env"]]));
  for (const [env, path] of maps) {
    if (!isMap(env)) continue;
    for (const [k, v] of Object.entries(env)) {
      if (typeof v !== "number" && typeof v !== "boolean") continue;
      const { origin, rest } = originOf(merged.prov, [...path, k]);
      if (rest.length === 0) env[k] = sourceText(files[origin.file].doc, origin.path) ?? String(v);
    }
  }
}

function at(file: SourceFile, offset: number, message: string): Diagnostic {
  return diagnosticAt(file.display, file.text, file.lines, offset, message);
}

function failure(file: SourceFile, diagnostics: Diagnostic[]): SuiteError {
  const n = diagnostics.length;
  return new SuiteError(`${file.display}: ${n} problem${n === 1 ? "" : "s"}`, diagnostics);
}
