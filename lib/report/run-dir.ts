// A results directory belongs to one run. A second run into it would mix its files with the first's
// (stale logs, a certificate that no longer verifies), and two runs at once would lose one's results:
// so `--out` refuses a directory that holds a run, `--force` moves that run aside whole, and a lock
// file turns a concurrent second run away at once.
import { closeSync, existsSync, lstatSync, mkdirSync, openSync, readFileSync, readdirSync, renameSync, rmdirSync, rmSync, type Stats, writeSync } from "node:fs";
import { dirname, join } from "node:path";
import { SuiteError } from "../core/errors.ts";
import { type FsContext, withFs } from "../core/fs-error.ts";
import { readResults, RESULT_FILES } from "./results.ts";
import { mkdirPrivate, setGroupReadable, setRunRoot } from "../core/private-fs.ts";

export const LOCK_FILE = ".gpucheck.lock";

/** What marks a directory as holding a run (any one is enough: a run killed early has some). */
const RUN_FILES = [RESULT_FILES.results, RESULT_FILES.junit, RESULT_FILES.logs, "certificate.intoto.json"];

export interface ClaimedRunDir {
  /** where the old run went, with --force */
  movedTo?: string;
  /** gpucheck made the directory now (not an empty one the user had): it may take it away again */
  created: boolean;
  release(): void;
}

/**
 * Fills a claimed directory with a derived run (judge, certify --out) and releases it. A failure
 * half-way (a full disk, a read-only mount) leaves nothing behind: a directory gpucheck made goes
 * whole, one the user had is emptied of what was written; the error is said as one line for `doing`.
 */
export function fillRunDir<T>(dir: string, claim: ClaimedRunDir, doing: string, fill: () => T): T {
  const before = new Set(existsSync(dir) ? readdirSync(dir) : []);
  try {
    return withFs({ doing, path: dir, option: "--out", mode: "write" }, fill);
  } catch (e) {
    if (claim.created) rmSync(dir, { recursive: true, force: true });
    else for (const f of readdirSync(dir)) if (!before.has(f)) rmSync(join(dir, f), { recursive: true, force: true });
    throw e;
  } finally {
    claim.release();
  }
}

/** --out's file-system errors (read-only, full, not a directory, …) as one line naming it. */
export function claimRunDir(dir: string, opts: { force?: boolean; now?: Date; groupReadable?: boolean } = {}): ClaimedRunDir {
  setGroupReadable(opts.groupReadable ?? false);
  const ctx: FsContext = { doing: "set up the results directory at", path: dir, option: "--out", mode: "write" };
  return withFs(ctx, () => claim(dir, opts));
}

function claim(dir: string, opts: { force?: boolean; now?: Date }): ClaimedRunDir {
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
  const created = makePrivate(dir);
  try {
    const locked = lockRunDir(dir);
    // from here on every file of the run is written through private-fs.ts, never through a symlink
    setRunRoot(dir);
    return {
      ...(movedTo && { movedTo }),
      created,
      release: () => {
        locked.release();
        setRunRoot(undefined);
      },
    };
  } catch (e) {
    // nothing left behind: the directory made a moment ago goes again (rmdir: only while empty)
    if (created) rmdirQuietly(dir);
    throw e;
  }
}

function rmdirQuietly(dir: string): void {
  try {
    rmdirSync(dir);
  } catch {
    // not empty or already gone: left as it is
  }
}

/**
 * An exclusive lock file in dir (LOCK_FILE for a run; a soak holds its own across its rounds), held
 * while its pid lives: a second gpucheck is turned away at once, a lock left by a killed one removed.
 */
export function lockRunDir(dir: string, file = LOCK_FILE): { release(): void } {
  const holder = lockHolder(dir, file);
  if (holder) throw new SuiteError(`--out "${dir}" is in use by another gpucheck run (${holder}): wait for it, or choose another --out`);
  const lock = join(dir, file);
  let fd: number;
  try {
    fd = openSync(lock, "wx", 0o600);
  } catch (e) {
    // another run took it between the check and now; any other error is the directory's, said as such
    if ((e as NodeJS.ErrnoException).code === "EEXIST")
      throw new SuiteError(`--out "${dir}" is in use by another gpucheck run (${lockHolder(dir, file) ?? "it just started"}): wait for it, or choose another --out`);
    throw e;
  }
  try {
    writeSync(fd, `${process.pid} ${new Date().toISOString()}\n`);
  } catch (e) {
    // a full disk: no empty lock file left behind to turn the next run away
    rmSync(lock, { force: true });
    throw e;
  } finally {
    closeSync(fd);
  }
  return { release: () => rmSync(lock, { force: true }) };
}

/**
 * The run directory is the operator's alone: the local platform runs Python from <out>/workload, so
 * a directory another user made (or can write to, or a symlink they planted) would run their code
 * as the operator. gpucheck makes the last component itself, 0700; an existing one must be the
 * user's own, not a symlink, and writable by nobody else.
 */
function makePrivate(dir: string): boolean {
  try {
    mkdirSync(dirname(dir), { recursive: true });
  } catch (e) {
    // mkdir -p says EEXIST of a parent that is a file: for --out that is a path under a file
    if ((e as NodeJS.ErrnoException).code === "EEXIST")
      throw Object.assign(new Error(`ENOTDIR: not a directory, mkdir '${dir}'`), { code: "ENOTDIR", syscall: "mkdir", path: dir });
    throw e;
  }
  if (mkdirPrivate(dir)) return true;
  const st = lstatSync(dir);
  const uid = process.getuid?.() ?? st.uid;
  const what = `${describeOwner(st)}, mode ${(st.mode & 0o7777).toString(8).padStart(4, "0")}`;
  if (st.isSymbolicLink())
    throw new SuiteError(`--out "${dir}" is a symbolic link (${what}): gpucheck writes and runs code only in a directory it can trust; give the real path, or a new one`);
  // a regular file there: mkdir's own EEXIST, said as the path's problem by claimRunDir
  if (!st.isDirectory()) throw Object.assign(new Error(`EEXIST: file already exists, mkdir '${dir}'`), { code: "EEXIST", syscall: "mkdir", path: dir });
  if (st.uid !== uid) throw new SuiteError(`--out "${dir}" belongs to another user (${what}): its contents could run as you; choose a new --out, which gpucheck creates itself`);
  if (st.mode & 0o022)
    throw new SuiteError(`--out "${dir}" is writable by group or others (${what}): its contents could be replaced while gpucheck runs them; chmod go-w it, or choose a new --out`);
  return false;
}

function describeOwner(st: Stats): string {
  let name = "";
  try {
    name =
      readFileSync("/etc/passwd", "utf8")
        .split("\n")
        .find((l) => l.split(":")[2] === String(st.uid))
        ?.split(":")[0] ?? "";
  } catch {
    // no passwd file: the uid alone
  }
  return `owner ${name ? `${name} (uid ${st.uid})` : `uid ${st.uid}`}`;
}

/** "pid 123, started …" while its process lives; a lock left by a killed run is removed. */
function lockHolder(dir: string, file = LOCK_FILE): string | null {
  const lock = join(dir, file);
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
    const r = readResults(dir).results;
    return `suite "${r.suite.name}", started ${r.startedAt}${existsSync(join(dir, "certificate.intoto.json")) ? ", signed" : ""}`;
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
