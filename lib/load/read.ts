// A suite reference (built-in name, builtin:<name>.yaml, or a path) → its text and parsed YAML.
// Problems that have no line to point at (missing file, directory, empty, binary) come back as a
// one-line reason; the caller decides whether it is fatal or belongs to an `extends:` value.
import { existsSync, readFileSync, statSync } from "node:fs";
import { dirname, isAbsolute, join, resolve } from "node:path";
import { type Document, LineCounter, parseDocument } from "../core/yaml.ts";
import { builtinSuites } from "../core/assets.ts";
import { sha256 } from "../core/sha256.ts";
import { closest } from "../core/did-you-mean.ts";
import { isPlainYaml } from "./yaml-plain.ts";
import { type ErrnoError, fsErrorLine, isErrnoError } from "../core/fs-error.ts";
import { BUILTIN_DATA } from "./builtin-data.gen.ts";

export class SourceFile {
  private parsed?: { doc: Document; lines: LineCounter };
  constructor(
    /** as shown in messages: the path as the user gave it, or builtin:<name>.yaml */
    readonly display: string,
    /** identity for loop detection: an absolute path or builtin:<name>.yaml */
    readonly id: string,
    /** directory that relative `extends:` paths start from; undefined for built-ins */
    readonly dir: string | undefined,
    readonly builtin: boolean,
    readonly text: string,
    readonly sha256: string,
    /** the data as JSON, read at build time (a built-in suite: scripts/gen-suite-data.ts); the text is plain */
    readonly json?: string,
  ) {}

  private isPlain?: boolean;

  /** both parsers read the text alike, so Bun's fast one may (yaml-plain.ts) */
  get plain(): boolean {
    this.isPlain ??= this.json !== undefined || isPlainYaml(this.text);
    return this.isPlain;
  }

  /** The document with every node's position: parsed on first use, which a valid plain file never needs. */
  get doc(): Document {
    return this.positions().doc;
  }

  get lines(): LineCounter {
    return this.positions().lines;
  }

  private positions() {
    if (!this.parsed) {
      const lines = new LineCounter();
      // logLevel "error": a key that is a collection is reported by the loader at its position
      // (unknown key "[ a, b ]"); yaml's own console warning about it only repeated that, unplaced
      const doc = parseDocument(this.text, { lineCounter: lines, prettyErrors: false, merge: true, uniqueKeys: true, logLevel: "error" });
      this.parsed = { doc, lines };
    }
    return this.parsed;
  }
}

/** Written into every results directory by `gpucheck suite` (lib/load/resolved.ts). */
export const RESOLVED_SUITE = "suite.resolved.yaml";

export type Opened = { ok: true; file: SourceFile } | { ok: false; reason: string; notFound: boolean };

const NAME_LIKE = /^[a-z0-9][a-z0-9-]*$/;

/**
 * Names that match a built-in suite are built-ins (write ./h100-8x for a local file of that name);
 * everything else is a path, relative to the extending file's directory or to `cwd`.
 * Built-in suites can only extend other built-ins.
 */
export function openSuite(ref: string, cwd: string, from?: SourceFile): Opened {
  const builtins = builtinSuites();
  const builtinName = ref.startsWith("builtin:") ? ref.slice("builtin:".length).replace(/\.ya?ml$/, "") : NAME_LIKE.test(ref) ? ref : undefined;
  const builtin = builtinName === undefined ? undefined : builtins.get(builtinName);
  if (builtin) {
    const file = source(builtin.path, builtin.path, undefined, true, Buffer.from(builtin.text));
    // the build's reading of this very text (a stale one has another hash and is ignored)
    const data = BUILTIN_DATA[`${builtin.name}.yaml`];
    if (data?.sha256 !== file.sha256) return { ok: true, file };
    return { ok: true, file: new SourceFile(file.display, file.id, file.dir, true, file.text, file.sha256, data.json) };
  }
  const near = builtinName && closest(builtinName, builtins.keys());
  const hint = near ? `: did you mean "${near}"?` : "";
  if (ref.startsWith("builtin:") || from?.builtin) return { ok: false, notFound: true, reason: `no built-in suite "${builtinName ?? ref}"${hint}` };

  const abs = resolve(from?.dir ?? cwd, ref);
  const display = from && !isAbsolute(ref) ? join(dirname(from.display), ref) : ref;
  const shown = isAbsolute(display) || display.startsWith(".") ? display : `./${display}`;
  const fail = (reason: string, notFound = false): Opened => ({ ok: false, reason, notFound });
  // a path that cannot be read (a directory, under a file, no permission) in the words lib/core/fs-error.ts gives every path
  const unreadable = (err: ErrnoError) => fsErrorLine({ ...err, path: shown }, { doing: "read the suite file", path: shown, mode: "read", choose: "another suite file" });
  let bytes: Buffer;
  try {
    if (statSync(abs).isDirectory()) {
      // a results directory stands for the suite it ran (suite.resolved.yaml), extends and all
      if (!from && existsSync(join(abs, RESOLVED_SUITE))) return openSuite(join(ref, RESOLVED_SUITE), cwd);
      return fail(unreadable(Object.assign(new Error("EISDIR"), { code: "EISDIR" })));
    }
    bytes = readFileSync(abs);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ENOENT") {
      return fail(builtinName ? `no built-in suite "${builtinName}" and no file ${shown}${hint}` : `${from ? "no file" : "suite file not found:"} ${shown}`, true);
    }
    if (isErrnoError(err)) return fail(unreadable(err), code === "ENOTDIR");
    return fail(`cannot read suite file ${shown}: ${(err as Error).message}`);
  }
  const nul = bytes.indexOf(0);
  if (nul !== -1) return fail(`suite file is binary, not YAML text: ${shown} (NUL byte at offset ${nul})`);
  try {
    new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return fail(`suite file is binary, not YAML text: ${shown} (not valid UTF-8)`);
  }
  const file = source(display, abs, dirname(abs), false, bytes);
  // nothing but blank lines and comments
  if (!/^[ \t]*[^\s#]/m.test(file.text)) return fail(`suite file is empty: ${shown}`);
  return { ok: true, file };
}

function source(display: string, id: string, dir: string | undefined, builtin: boolean, bytes: Buffer): SourceFile {
  const text = new TextDecoder("utf-8").decode(bytes);
  return new SourceFile(display, id, dir, builtin, text, sha256(bytes));
}
