// suite file or built-in name → a fully resolved Suite, or a SuiteError carrying every problem.
//   read (load/read.ts) → the extends chain (load/chain.ts) → merge with provenance (load/merge.ts)
//   → schema and cross-field checks on the merged data (load/check.ts) → positions via provenance
import { type Diagnostic, SuiteError } from "../core/errors.ts";
import { at, readChain } from "./chain.ts";
import { checkSuite } from "./check.ts";
import { isMap, mergeSuites, originOf, type Tracked, track } from "./merge.ts";
import { checkRemove, duplicateNames, type FileProblem } from "./per-file.ts";
import { openSuite, type SourceFile } from "./read.ts";
import type { PathKey, Problem } from "../core/issues.ts";
import type { Suite } from "../core/types.ts";
import type { PlatformRegistry } from "../core/platform.ts";
import { renderResolved } from "./resolved.ts";
import { resolveFabricPaths } from "./fabric-paths.ts";
import { inheritedTotals } from "./scaled-totals.ts";
import { locate, sourceText } from "./yaml-positions.ts";

/** What loading a suite needs besides its name. */
export interface LoadOptions {
  cwd?: string;
  /** the platforms a suite may name: a lib/pipeline flow's (cli/platforms.ts); without it, the one registered */
  platforms?: PlatformRegistry;
}

export async function loadSuite(ref: string, opts: LoadOptions = {}): Promise<Suite> {
  return (await loadSuiteWarnings(ref, opts)).suite;
}

/** The suite, and what is valid but probably not meant (load/scaled-totals.ts): shown by validate and plan. */
export async function loadSuiteWarnings(ref: string, opts: LoadOptions = {}): Promise<{ suite: Suite; warnings: Diagnostic[] }> {
  const cwd = opts.cwd ?? process.cwd();
  const opened = openSuite(ref, cwd);
  if (!opened.ok) throw new SuiteError(`gpucheck: ${opened.reason}`);
  const { files, raws, diagnostics } = readChain(opened.file, cwd);
  if (diagnostics.length) throw failure(files[0], diagnostics);

  const { merged, levels, problems } = mergeChain(files, raws);

  const checked = checkSuite(merged.value as Record<string, unknown>, opts.platforms);
  problems.push(...checked.problems.map((p) => inFile(merged, p)));
  problems.push(...resolveFabricPaths(merged, files, checked.suite.tests, cwd));
  if (problems.length) {
    const located = problems.map((p) => ({ file: p.file, offset: locate(files[p.file].doc, p.path, p.at).offset, message: p.message }));
    const unique = new Map(located.map((d) => [`${d.file}:${d.offset}:${d.message}`, d]));
    const sorted = [...unique.values()].sort((a, b) => a.file - b.file || a.offset - b.offset);
    throw failure(
      files[0],
      sorted.map((d) => at(files[d.file], d.offset, d.message)),
    );
  }
  const source = (f: SourceFile) => ({ path: f.display, sha256: f.sha256, builtin: f.builtin });
  const suite = { ...checked.suite, source: { ...source(files[0]), ...(files.length > 1 && { parents: files.slice(1).map(source) }) } };
  return { suite, warnings: files.length > 1 ? inheritedTotals(levels, files) : [] };
}

/** The chain merged from the root ancestor down to the file the user named, with provenance. */
function mergeChain(files: SourceFile[], raws: Record<string, unknown>[]): { merged: Tracked; levels: Tracked[]; problems: FileProblem[] } {
  const root = files.length - 1;
  let merged = track(raws[root], root);
  // levels[i]: the chain merged down to file i (merging copies, so earlier levels stay as they were)
  const levels: Tracked[] = [];
  const problems: FileProblem[] = [];
  for (let i = root; i >= 0; i--) {
    problems.push(...duplicateNames(raws[i], i, files[i]));
    const remove = checkRemove(raws[i].remove, merged.value, i, i < root);
    problems.push(...remove.problems);
    if (i < root) merged = mergeSuites(merged, track(raws[i], i), remove.names);
    levels[i] = merged;
  }
  keepEnvAsWritten(merged, files);
  return { merged, levels, problems };
}

/**
 * The suite as it runs, every `extends` merged in, as YAML that stands alone (no `extends`), each
 * value followed by the file and line that wrote it. Saved as suite.resolved.yaml in every run.
 */
export function resolvedSuiteYaml(ref: string, opts: { cwd?: string; sources?: boolean } = {}): string {
  const cwd = opts.cwd ?? process.cwd();
  const opened = openSuite(ref, cwd);
  if (!opened.ok) throw new SuiteError(`gpucheck: ${opened.reason}`);
  const { files, raws, diagnostics } = readChain(opened.file, cwd);
  if (diagnostics.length) throw failure(files[0], diagnostics);
  const { merged } = mergeChain(files, raws);
  return renderResolved(merged, files, { sources: opts.sources });
}

/** A problem of the merged suite → the file and path that wrote it; of several values involved, the one nearest the user. */
function inFile(merged: Tracked, p: Problem): FileProblem {
  const { origin, rest } = (p.also ?? [])
    .map((path) => originOf(merged.prov, path))
    .filter((c) => c.rest.length === 0)
    .reduce((best, c) => (c.origin.file < best.origin.file ? c : best), originOf(merged.prov, p.path));
  return { file: origin.file, path: [...origin.path, ...rest], message: p.message, at: p.at };
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
      // a plain file's env numbers are written canonically (yaml-plain.ts): no need to parse it again
      if (rest.length === 0 && !files[origin.file].plain) env[k] = sourceText(files[origin.file].doc, origin.path) ?? String(v);
    }
  }
}

function failure(file: SourceFile, diagnostics: Diagnostic[]): SuiteError {
  const n = diagnostics.length;
  return new SuiteError(`${file.display}: ${n} problem${n === 1 ? "" : "s"}`, diagnostics);
}
