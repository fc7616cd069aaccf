// A results directory belongs to one run. A second run into it would mix its files with the first's
// (stale logs, a certificate that no longer verifies), and two runs at once would lose one's results:
// so `--out` refuses a directory that holds a run, `--force` moves that run aside whole, and a lock
// file turns a concurrent second run away at once.
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, readdirSync, renameSync, rmSync, writeSync } from "node:fs";
import { join } from "node:path";
import { SuiteError } from "../core/errors.ts";
import { RESULT_FILES } from "./results.ts";

export const LOCK_FILE = ".gpucheck.lock";

/** What marks a directory as holding a run (any one is enough: a run killed early has some). */
const RUN_FILES = [RESULT_FILES.results, RESULT_FILES.junit, RESULT_FILES.logs, "certificate.intoto.json"];

export interface ClaimedRunDir {
  /** where the old run went, with --force */
  movedTo?: string;
  release(): void;
}

export function claimRunDir(dir: string, opts: { force?: boolean; now?: Date } = {}): ClaimedRunDir {
  const holder = lockHolder(dir);
  if (holder) throw new SuiteError(`--out "${dir}" is in use by another gpucheck run (${holder}): wait for it, or choose another --out`);
  let movedTo: string | undefined;
  if (existsSync(dir) && RUN_FILES.some((f) => existsSync(join(dir, f)))) {
    if (!opts.force) {
      throw new SuiteError(`--out "${dir}" already holds a run (${describeRun(dir)}): nothing was touched; choose another --out, or add --force to move that run aside`);
    }
    movedTo = `${dir}.replaced-${utcStamp(opts.now ?? new Date())}`;
    renameSync(dir, movedTo);
  }
  mkdirSync(dir, { recursive: true });
  const lock = join(dir, LOCK_FILE);
  let fd: number;
  try {
    fd = openSync(lock, "wx", 0o644);
  } catch {
    // another run took it between the check and now
    throw new SuiteError(`--out "${dir}" is in use by another gpucheck run (${lockHolder(dir) ?? "it just started"}): wait for it, or choose another --out`);
  }
  writeSync(fd, `${process.pid} ${new Date().toISOString()}\n`);
  closeSync(fd);
  return { ...(movedTo && { movedTo }), release: () => rmSync(lock, { force: true }) };
}

/** "pid 123, started …" while its process lives; a lock left by a killed run is removed. */
function lockHolder(dir: string): string | null {
  const lock = join(dir, LOCK_FILE);
  let text: string;
  try {
    text = readFileSync(lock, "utf8");
  } catch {
    return null;
  }
  const [pid, started] = text.trim().split(" ");
  if (pid && alive(Number(pid))) return `pid ${pid}, started ${started}`;
  rmSync(lock, { force: true });
  return null;
}

function alive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}

function describeRun(dir: string): string {
  try {
    const r = JSON.parse(readFileSync(join(dir, RESULT_FILES.results), "utf8"));
    return `suite "${r.suite?.name}", started ${r.startedAt}${existsSync(join(dir, "certificate.intoto.json")) ? ", signed" : ""}`;
  } catch {
    return readdirSync(dir)
      .filter((f) => RUN_FILES.includes(f))
      .join(", ");
  }
}

/** 20261121T235501Z: sortable, no colons (safe in paths on every filesystem). */
export function utcStamp(d: Date): string {
  return d
    .toISOString()
    .replace(/[-:]/g, "")
    .replace(/\.\d+Z$/, "Z");
}
