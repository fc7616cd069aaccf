// Every file gpucheck writes (or stages to run) inside a run directory goes through here. The run
// directory is the operator's alone (run-dir.ts makePrivate); inside it gpucheck never follows a
// symbolic link: a file is opened with O_NOFOLLOW, a directory is made by gpucheck or lstat'd as a
// real directory of this user that nobody else can write, and a symlink in either place is refused
// in one line. Modes are set explicitly (fchmod/chmod), so the umask does not decide who reads a
// run: 0700/0600, or 0750/0640 with --group-readable.
import { chmodSync, closeSync, constants, fchmodSync, lstatSync, mkdirSync, openSync, readlinkSync, renameSync, rmSync, writeSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { PlatformError } from "./errors.ts";

let groupReadable = false;
let runRoot: string | undefined;

/** `--group-readable`: the run's group may read it (never write). */
export function setGroupReadable(on: boolean): void {
  groupReadable = on;
}

export const privateModes = () => (groupReadable ? { dir: 0o750, file: 0o640 } : { dir: 0o700, file: 0o600 });

/** The run directory this process writes into (claimRunDir): paths under it are checked here. */
export function setRunRoot(dir: string | undefined): void {
  runRoot = dir === undefined ? undefined : resolve(dir);
}

/** One line: what is wrong, where, what gpucheck was doing, what to do. */
function symlinkRefusal(path: string, doing: string): PlatformError {
  let to = "";
  try {
    to = ` (to ${readlinkSync(path)})`;
  } catch {
    // gone meanwhile: the path alone
  }
  return new PlatformError(`${path} is a symbolic link${to} inside the run directory: gpucheck never ${doing} through one there; remove it, or run into a new --out`);
}

/** Why a directory that exists must not be written into, or undefined. lstat: a symlink is itself. */
function untrustedDir(path: string): string | undefined {
  const st = lstatSync(path);
  if (st.isSymbolicLink()) return "symlink";
  if (!st.isDirectory()) return "is not a directory";
  const uid = process.getuid?.();
  if (uid !== undefined && st.uid !== uid) return `belongs to uid ${st.uid}, not to this user (uid ${uid})`;
  if (st.mode & 0o022) return `is writable by group or others (mode ${(st.mode & 0o777).toString(8)})`;
  return undefined;
}

/**
 * mkdir -p for a directory inside the run directory: each component below the run directory that
 * is missing is made with the private mode; each that exists must be a real directory of this user
 * that nobody else can write. Outside a run directory (tests, `gpucheck report`) it is mkdir -p.
 */
export function ensurePrivateDir(dir: string): void {
  const abs = resolve(dir);
  const root = runRoot;
  if (root === undefined || (abs !== root && !abs.startsWith(root + sep))) {
    mkdirSync(abs, { recursive: true });
    return;
  }
  let at = root;
  for (const part of relative(root, abs).split(sep).filter(Boolean)) {
    at = join(at, part);
    if (mkdirPrivate(at)) continue;
    const why = untrustedDir(at);
    if (why === "symlink") throw symlinkRefusal(at, "writes");
    if (why) throw new PlatformError(`${at} inside the run directory ${why}: gpucheck writes and runs code only in directories it can trust; remove it, or run into a new --out`);
  }
}

/** Makes `dir` with the run's private mode, whatever the umask: true when made, false when it already existed. */
export function mkdirPrivate(dir: string): boolean {
  try {
    mkdirSync(dir, { mode: privateModes().dir });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
    return false;
  }
  chmodSync(dir, privateModes().dir);
  return true;
}

/**
 * A directory gpucheck runs code from (the local platform's stage): made here, private, or an
 * existing real directory of this user that nobody else can write. `what` names it in the refusal.
 */
export function ensureOwnDir(dir: string, what: string): void {
  mkdirSync(dirname(resolve(dir)), { recursive: true });
  if (mkdirPrivate(dir)) return;
  const why = untrustedDir(dir);
  if (why === "symlink") throw symlinkRefusal(dir, `runs code`);
  if (why) throw new PlatformError(`${what} ${dir} ${why}: gpucheck runs code only from a directory it can trust; remove it, or choose another`);
}

const NOFOLLOW = constants.O_NOFOLLOW ?? 0;

/** open(2) with O_NOFOLLOW, its parent made private first; a symlink at `path` is refused. */
export function openPrivate(path: string, how: "truncate" | "append" | "exclusive"): number {
  ensurePrivateDir(dirname(path));
  const flags = constants.O_WRONLY | constants.O_CREAT | NOFOLLOW | (how === "append" ? constants.O_APPEND : how === "exclusive" ? constants.O_EXCL : constants.O_TRUNC);
  let fd: number;
  try {
    fd = openSync(path, flags, privateModes().file);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ELOOP") throw symlinkRefusal(path, "writes");
    throw e;
  }
  fchmodSync(fd, privateModes().file);
  return fd;
}

/** writeFileSync, private and never through a symlink. */
/** The whole buffer: write(2) may take less than asked. */
function writeAll(fd: number, data: string | Uint8Array): void {
  const buf = typeof data === "string" ? Buffer.from(data) : data;
  let off = 0;
  while (off < buf.length) off += writeSync(fd, buf, off);
}

export function writePrivateFile(path: string, data: string | Uint8Array): void {
  const fd = openPrivate(path, "truncate");
  try {
    writeAll(fd, data);
  } finally {
    closeSync(fd);
  }
}

/**
 * Written beside the target under a fresh name (O_EXCL, O_NOFOLLOW) and renamed over it: rename
 * replaces whatever is at `path`, a symlink included, and never writes through it.
 */
export function writePrivateFileAtomic(path: string, data: string | Uint8Array): void {
  const tmp = join(dirname(path), `.${path.split(sep).pop()}.${process.pid}.tmp`);
  rmSync(tmp, { force: true });
  try {
    const fd = openPrivate(tmp, "exclusive");
    try {
      writeAll(fd, data);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, path);
  } catch (e) {
    rmSync(tmp, { force: true });
    throw e;
  }
}
