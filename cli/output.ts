// What gpucheck prints goes out synchronously. process.exit() right after an asynchronous write
// drops whatever a pipe had not taken yet (190 kB of `plan --json` reached `| jq` as 65,536 bytes,
// exit 0), and an error writing (EPIPE, ENOSPC) went unnoticed.
import { writeSync } from "node:fs";
import { EXIT } from "../lib/core/errors.ts";

/** Standard output could not be written: the output is incomplete, so the command failed. */
export class OutputError extends Error {
  readonly exitCode = EXIT.infra;
  constructor(message: string) {
    super(message);
    this.name = "OutputError";
  }
}

const WHY: Record<string, string> = {
  EPIPE: "the reader closed the pipe",
  ENOSPC: "no space left on the device",
  EDQUOT: "disk quota exceeded",
  EIO: "input/output error",
  EBADF: "standard output is closed",
};

/**
 * Where standard output and error go instead, while a test runs a command in its own process
 * (test/e2e/cli.ts): a process start per case was most of the unit tier's CPU time.
 */
let capture: ((fd: 1 | 2, text: string) => void) | undefined;
export function captureOutput(to: typeof capture): void {
  capture = to;
}

/** One write to standard output (1) or error (2), as commander makes it (cli/program.ts). */
export function writeFd(fd: 1 | 2, text: string): void {
  if (capture) capture(fd, text);
  else writeSync(fd, text);
}

function writeAll(fd: 1 | 2, text: string): void {
  if (capture) return capture(fd, text);
  const buf = Buffer.from(text);
  let off = 0;
  while (off < buf.length) {
    try {
      off += writeSync(fd, buf, off);
    } catch (e) {
      // a non-blocking pipe that is full: wait for the reader rather than drop the rest
      if ((e as NodeJS.ErrnoException).code === "EAGAIN") Bun.sleepSync(2);
      else throw e;
    }
  }
}

export function out(text: string): void {
  try {
    writeAll(1, text);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code ?? "";
    throw new OutputError(`could not write to standard output: ${code}${WHY[code] ? ` (${WHY[code]})` : `: ${(e as Error).message}`}`);
  }
}

export function err(text: string): void {
  try {
    writeAll(2, text);
  } catch {
    // standard error itself is gone: there is nowhere left to say so
  }
}

/** process.stderr for the progress display, writing through err(). */
export function syncStderr(): NodeJS.WriteStream {
  return new Proxy(process.stderr, {
    get: (target, prop) => (prop === "write" ? (s: string) => (err(s), true) : Reflect.get(target, prop)),
  });
}
