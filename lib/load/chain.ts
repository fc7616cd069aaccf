// The file the user named and every suite it extends, each parsed, with the problems that stop the
// chain: YAML syntax, a suite that is not a map, an `extends` that does not resolve or loops.
import type { Diagnostic } from "../core/errors.ts";
import { show } from "../core/units.ts";
import { diagnosticAt, locate } from "./yaml-positions.ts";
import { syntaxDiagnostics } from "./yaml-syntax.ts";
import { isMap } from "./merge.ts";
import { openSuite, type SourceFile } from "./read.ts";

const MAX_DEPTH = 16;
const SLOW = Symbol("parse with the yaml package");

export interface Chain {
  /** [the named file, its parent, the parent's parent, …] */
  files: SourceFile[];
  /** each file's data, as YAML gives it */
  raws: Record<string, unknown>[];
  diagnostics: Diagnostic[];
}

export function readChain(first: SourceFile, cwd: string): Chain {
  const chain: Chain = { files: [], raws: [], diagnostics: [] };
  const { files, raws, diagnostics } = chain;
  for (let file: SourceFile | undefined = first; file; ) {
    files.push(file);
    const raw = toJS(file, diagnostics);
    if (!raw) break;
    raws.push(raw);
    file = raw.extends === undefined ? undefined : parent(raw.extends, files, cwd, diagnostics);
  }
  return chain;
}

function parent(ext: unknown, files: SourceFile[], cwd: string, diagnostics: Diagnostic[]): SourceFile | undefined {
  const here = files.at(-1)!;
  const where = locate(here.doc, ["extends"], "value").offset;
  const fail = (message: string) => void diagnostics.push(at(here, where, message));
  if (typeof ext !== "string" || ext.trim() === "") return fail(`"extends" must be the name of a built-in suite or a file path, got ${show(ext)}`);
  if (files.length > MAX_DEPTH) return fail(`extends chain is deeper than ${MAX_DEPTH} suites`);
  const next = openSuite(ext, cwd, here);
  if (!next.ok) return fail(`extends "${ext}" does not resolve: ${next.reason}`);
  const loopAt = files.findIndex((f) => f.id === next.file.id);
  if (loopAt !== -1) return fail(`extends loop: ${[...files.slice(loopAt), files[loopAt]].map((f) => f.display).join(" → ")}`);
  return next.file;
}

/** The file's data: as the build read it (a built-in), by Bun's native parser when the text is plain (yaml-plain.ts), else by `yaml`. */
function toJS(file: SourceFile, diagnostics: Diagnostic[]): Record<string, unknown> | undefined {
  let raw: unknown = SLOW;
  if (file.json !== undefined) {
    raw = JSON.parse(file.json);
  } else if (file.plain) {
    try {
      raw = Bun.YAML.parse(file.text);
    } catch {
      // `yaml` will say what is wrong, and where
    }
  }
  if (raw === SLOW) {
    const syntax = syntaxDiagnostics(file.doc, file.text, file.lines, file.display);
    diagnostics.push(...syntax);
    if (syntax.length) return undefined;
    try {
      raw = file.doc.toJS({ maxAliasCount: 1000 });
    } catch (err) {
      diagnostics.push(at(file, 0, `invalid YAML: ${(err as Error).message}`));
      return undefined;
    }
  }
  if (isMap(raw)) return raw;
  const offset = file.doc.contents?.range?.[0] ?? 0;
  diagnostics.push(at(file, offset, `a suite must be a map with keys such as "name" and "tests", got ${show(raw)}`));
  return undefined;
}

export function at(file: SourceFile, offset: number, message: string): Diagnostic {
  return diagnosticAt(file.display, file.text, file.lines, offset, message);
}
