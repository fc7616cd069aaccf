// Reading and writing the files of a results directory. The names are fixed so other tools
// (Jenkins, the certificate, scripts) can rely on them.
import { closeSync, existsSync, fsyncSync, readFileSync, renameSync, rmSync, statSync, writeSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { PlatformError, SuiteError } from "../core/errors.ts";
import { asFileError, type FsContext, isErrnoError } from "../core/fs-error.ts";
import type { ResultsFile } from "../core/types.ts";
import { ResultsFileSchema } from "./results-schema.ts";
import { testPause } from "../core/test-pause.ts";
import { FLEET_UNITS } from "./fleet.ts";
import { openPrivate } from "../core/private-fs.ts";

export const RESULT_FILES = {
  results: "results.json",
  junit: "junit.xml",
  html: "report.html",
  summary: "summary.txt",
  /** the outputs other tools read, written beside junit.xml each time it is (write.ts) */
  ctrf: "ctrf.json",
  inventoryCdx: "inventory.cdx.json",
  metricsProm: "metrics.prom",
  logs: "logs",
  /** per-unit telemetry series of tests too big to keep them in results.json (write.ts) */
  telemetry: "telemetry",
} as const;

/**
 * Writes next to the target and renames over it, so a reader (Jenkins, a second terminal) never sees
 * half a file and a crash mid-write leaves the previous version. fsync before rename: after a power
 * loss the rename must not point at an empty file.
 */
export function writeFileAtomic(path: string, text: string): void {
  const tmp = join(dirname(path), `.${basename(path)}.${process.pid}.tmp`);
  const data = Buffer.from(text);
  let written = 0;
  try {
    // a fresh name (O_EXCL) never through a symlink (O_NOFOLLOW), private (private-fs.ts); rename
    // then replaces whatever is at `path`, a symlink included, without following it
    rmSync(tmp, { force: true });
    const fd = openPrivate(tmp, "exclusive");
    try {
      // in two halves, so that a test can kill gpucheck with half the file written (lib/core/test-pause.ts)
      const half = Math.ceil(data.length / 2);
      while (written < half) written += writeSync(fd, data, written, half - written);
      testPause(`write:${basename(path)}`);
      while (written < data.length) written += writeSync(fd, data, written);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, path);
  } catch (err) {
    try {
      rmSync(tmp, { force: true });
    } catch {
      // a read-only file system has no temporary file to remove
    }
    throw new ResultsWriteError(path, err, written, data.length);
  }
}

const WRITE_WHY: Record<string, string> = {
  ENOSPC: "no space left on the device",
  EDQUOT: "disk quota exceeded",
  EROFS: "the file system is read-only",
  EACCES: "permission denied",
  EIO: "input/output error",
  EISDIR: "a directory is in the way of the file",
};

/** What to do, with the directory named: the run's other files are there, so "choose another path" would lose them. */
function writeFix(code: string, dir: string): string {
  if (code === "ENOSPC" || code === "EDQUOT") return `free space there (df "${dir}") and run gpucheck again`;
  if (code === "EROFS") return `copy "${dir}" to a writable file system (cp -a) and run gpucheck again there`;
  if (code === "EACCES" || code === "EPERM") return `get write permission on "${dir}" (ls -ld "${dir}") and run gpucheck again`;
  if (code === "EISDIR") return "move that directory away and run gpucheck again";
  return "run gpucheck again once the disk is fixed";
}

/** A results file could not be written: an infrastructure error of one line, never a stack trace. */
export class ResultsWriteError extends PlatformError {
  constructor(path: string, err: unknown, written: number, total: number) {
    const code = (err as NodeJS.ErrnoException).code ?? "";
    const why = WRITE_WHY[code] ? `${WRITE_WHY[code]} (${code})` : (err as Error).message;
    const kept = code === "EISDIR" ? `no ${basename(path)} was written` : existsSync(path) ? `the previous ${basename(path)} is intact` : `no ${basename(path)} was written`;
    super(`cannot write ${path}: ${why}, after ${written} of ${total} bytes; ${kept}: ${writeFix(code, dirname(path))}`);
    this.name = "ResultsWriteError";
    // the file-system error itself, for a caller that says it in its own words (certify)
    this.cause = err;
  }
}

/**
 * Indented like JSON.stringify(…, 2) for people and diffs, except that data arrays (series points,
 * [size, value] rows, lists of plain values) stay on one line each: an hour of telemetry on 64 nodes
 * would otherwise be one line per number, several times the size (bench/report-files.ts).
 */
export function serialiseResults(results: ResultsFile): string {
  return `${layout(oneLinePerUnit(results), "")}\n`;
}

/**
 * A test of a fleet (more than FLEET_UNITS units, one per node) writes each unit on one line (and
 * each node's inventory and preflight), and
 * its telemetry series into a file of its own (write.ts): indenting every check of 1,000 nodes made
 * results.json nearly twice the size and its writing slower (bench/fleet-outputs.ts). The units
 * become values whose toJSON layout() writes on one line; a line per node still diffs well.
 */
function oneLinePerUnit(results: ResultsFile): ResultsFile {
  if (!results.tests.some((t) => t.units.length > FLEET_UNITS)) return results;
  const line = <T>(u: T): T => ({ toJSON: () => u }) as unknown as T;
  return {
    ...results,
    tests: results.tests.map((t) => (t.units.length > FLEET_UNITS ? { ...t, units: t.units.map(line) } : t)),
    // and a node's inventory (eight GPUs of eight fields each) and preflight a line each
    inventory: results.inventory.map(line),
    ...(results.preflight ? { preflight: { ...results.preflight, nodes: results.preflight.nodes.map(line) } } : {}),
  };
}

function layout(v: unknown, indent: string): string {
  if (v === null || typeof v !== "object") return JSON.stringify(v) ?? "null";
  if (typeof (v as { toJSON?: unknown }).toJSON === "function") return JSON.stringify(v);
  const inner = `${indent}  `;
  if (Array.isArray(v)) {
    if (v.length === 0) return "[]";
    if (v.every(isFlat)) return JSON.stringify(v);
    return `[\n${v.map((x) => inner + layout(x, inner)).join(",\n")}\n${indent}]`;
  }
  const entries = Object.entries(v).filter(([, x]) => x !== undefined && typeof x !== "function");
  if (entries.length === 0) return "{}";
  return `{\n${entries.map(([k, x]) => `${inner}${JSON.stringify(k)}: ${layout(x, inner)}`).join(",\n")}\n${indent}}`;
}

/** A value, or an array or object of values: one data point. */
function isFlat(x: unknown): boolean {
  if (x === null || typeof x !== "object") return true;
  // a unit of a fleet's test: one line of its own (oneLinePerUnit), never a whole array of them on one
  if (typeof (x as { toJSON?: unknown }).toJSON === "function") return false;
  const parts = Array.isArray(x) ? x : Object.values(x);
  return parts.length <= 4 && parts.every((p) => p === null || typeof p !== "object");
}

/** Validated content of a results.json; `source` names it in messages. */
export function parseResults(text: string, source: string): ResultsFile {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (err) {
    throw new SuiteError(`${source}: not valid JSON: ${(err as Error).message}`);
  }
  const version = (data as { schemaVersion?: unknown } | null)?.schemaVersion;
  if (data !== null && typeof data === "object" && version !== undefined && version !== 1) {
    throw new SuiteError(`${source}: schemaVersion ${JSON.stringify(version)} is not supported by this gpucheck (it reads version 1)`);
  }
  const parsed = ResultsFileSchema.safeParse(data);
  if (!parsed.success) {
    const issues = parsed.error.issues.slice(0, 10).map((i) => `  ${formatPath(i.path)}: ${i.message}`);
    const more = parsed.error.issues.length > 10 ? [`  … and ${parsed.error.issues.length - 10} more`] : [];
    throw new SuiteError([`${source}: not a gpucheck results file:`, ...issues, ...more].join("\n"));
  }
  // the input itself, not zod's copy: zod drops keys it does not know, and a newer gpucheck's
  // additive fields must survive `gpucheck judge` rewriting the file
  return data as ResultsFile;
}

/** `dir` may be the results directory or its results.json. */
export function readResults(dir: string, as?: Pick<FsContext, "doing" | "option">): { dir: string; path: string; results: ResultsFile } {
  let path = dir;
  let stat;
  // a path under a file, a directory nobody may enter: said as such, not as "no such directory"
  const ctx: FsContext = as ? { ...as, path: dir, mode: "read" } : { doing: "read the results", path: dir, mode: "read", choose: "another results directory" };
  try {
    stat = statSync(dir);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "ENOENT" && isErrnoError(e)) throw asFileError(e, ctx);
    throw new SuiteError(`"${dir}": no such results directory`);
  }
  if (stat.isDirectory()) path = join(dir, RESULT_FILES.results);
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "ENOENT" && isErrnoError(e)) throw asFileError(e, { ...ctx, path });
    throw new SuiteError(`"${dir}": no ${RESULT_FILES.results} in it (is it a gpucheck results directory?)`);
  }
  return { dir: dirname(path), path, results: parseResults(text, path) };
}

function formatPath(path: PropertyKey[]): string {
  if (path.length === 0) return "(top level)";
  return path.map((p, i) => (typeof p === "number" ? `[${p}]` : `${i === 0 ? "" : "."}${String(p)}`)).join("");
}
