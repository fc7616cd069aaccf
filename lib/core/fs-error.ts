// A Node file-system error (code, syscall, path) as the one line a user can act on: the path, what
// gpucheck was doing with it, why it failed in words, and what to do. Never a stack trace: EROFS,
// EACCES, EEXIST, ENOTDIR, ENOSPC and EISDIR are the user's disk or the user's path, not a bug.
import { existsSync, statSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { SuiteError } from "./errors.ts";

/** What gpucheck was doing with a path, as the call site knows it. */
export interface FsContext {
  /** "create the results directory", "read the suite file": a verb phrase after "cannot" */
  doing: string;
  /** the path the user gave (err.path, when it names a file inside, is named instead) */
  path: string;
  /** the option or argument that gave it ("--out", "--key", "<results-dir>"), named in the advice */
  option?: string;
  /** reading (a wrong path) or writing (a disk or a directory to fix) */
  mode: "read" | "write";
  /** what to choose instead, after "choose" (default: "another <option>") */
  choose?: string;
}

export interface ErrnoError extends Error {
  code: string;
  syscall?: string;
  path?: string;
  dest?: string;
}

/** An error thrown by node:fs (or Bun's): a code like ENOSPC, usually a syscall and a path. */
export function isErrnoError(err: unknown): err is ErrnoError {
  const code = (err as { code?: unknown } | null)?.code;
  return err instanceof Error && typeof code === "string" && /^E[A-Z]+$/.test(code);
}

/**
 * A path the user gave that gpucheck cannot use, said in one line: exit 2, as any bad input, and
 * nothing was done with it (a results file that fails mid-run is ResultsWriteError, exit 3).
 */
export class FileError extends SuiteError {
  constructor(message: string) {
    super(message);
    this.name = "FileError";
  }
}

/** The one line for err at ctx, without "gpucheck: ". */
export function fsErrorLine(err: ErrnoError, ctx: FsContext): string {
  // a write(2) error carries no path: the call site's is the file; a rename's target is the file meant
  const path = (err.syscall === "rename" ? err.dest : undefined) ?? err.path ?? ctx.path;
  const what = ctx.choose ?? (ctx.option ? `another ${ctx.option}` : "another path");
  const [why, fix] = explain(err.code, path, ctx, what);
  return `cannot ${ctx.doing} "${path}": ${why} (${err.code}): ${fix}`;
}

function explain(code: string, path: string, ctx: FsContext, what: string): [string, string] {
  switch (code) {
    case "EROFS":
      return ["the file system is read-only", `choose ${what} on a writable file system`];
    case "EACCES":
    case "EPERM": {
      if (ctx.mode === "read") return ["permission denied", `make it readable by uid ${process.getuid?.() ?? "?"} (ls -ld "${path}"), or choose ${what}`];
      const where = nearestExisting(path);
      return ["permission denied", `choose ${what} you can write to, or get write permission on "${where}" (ls -ld "${where}")`];
    }
    case "EEXIST":
      return ["something that is not a directory is already there", `choose ${what}, or move that file away`];
    case "ENOTDIR": {
      const file = fileAncestor(path);
      return [file ? `"${file}" is a file, not a directory` : "a part of the path is not a directory", `choose ${what} whose parents are directories`];
    }
    case "ENOSPC":
    case "EDQUOT":
      return [
        code === "ENOSPC" ? "no space left on the device" : "disk quota exceeded",
        `free space there (df "${nearestExisting(path)}"), or choose ${what} on another file system`,
      ];
    case "EISDIR":
      return ctx.mode === "read"
        ? ["it is a directory", `give the path of a file, or choose ${what}`]
        : ["a directory is in the way of the file", `move that directory away, or choose ${what}`];
    case "ENOENT":
      return ["no such file or directory", `check the path, or choose ${what}`];
    case "ELOOP":
      return ["too many symbolic links", `give the real path, or choose ${what}`];
    case "ENAMETOOLONG":
      return ["the name is too long", `choose ${what} with a shorter path`];
    case "EIO":
      return ["input/output error", `check the disk (dmesg), or choose ${what}`];
    default:
      return [code, `choose ${what}`];
  }
}

/** err as a FileError at ctx when it is a file-system error; anything else unchanged. */
export function asFileError(err: unknown, ctx: FsContext): unknown {
  return isErrnoError(err) ? new FileError(fsErrorLine(err, ctx)) : err;
}

/** fn, its file-system errors turned into the line for ctx. */
export function withFs<T>(ctx: FsContext, fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    throw asFileError(err, ctx);
  }
}

/** An fs error that reached the top with no call site's words: the line from its syscall alone. */
export function uncaughtFsLine(err: ErrnoError): string {
  const doing = SYSCALL_DOING[err.syscall ?? ""] ?? `${err.syscall ?? "use"}`;
  const mode = ["open", "read", "stat", "lstat", "scandir", "readlink"].includes(err.syscall ?? "") ? "read" : "write";
  return fsErrorLine(err, { doing, path: err.path ?? "(no path)", mode });
}

const SYSCALL_DOING: Record<string, string> = {
  mkdir: "create the directory",
  open: "open",
  write: "write",
  read: "read",
  rename: "rename a file into",
  unlink: "remove",
  rmdir: "remove",
  scandir: "list",
  copyfile: "copy into",
  link: "link into",
  symlink: "link into",
  chmod: "change the mode of",
  stat: "look at",
  lstat: "look at",
};

/** The deepest existing ancestor of path (itself when it exists): where df and ls -ld look. */
function nearestExisting(path: string): string {
  let p = resolve(path);
  while (!existsSync(p) && dirname(p) !== p) p = dirname(p);
  return p;
}

/** The ancestor of path that is a regular file (why a mkdir or open under it said ENOTDIR). */
function fileAncestor(path: string): string | undefined {
  let p = resolve(path);
  for (;;) {
    try {
      if (!statSync(p).isDirectory()) return p;
      return undefined;
    } catch {
      // missing, or itself under a file: look higher
    }
    if (dirname(p) === p) return undefined;
    p = dirname(p);
  }
}
