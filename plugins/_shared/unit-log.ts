// The sink for one unit's rank lines, the same for every platform: each rank's log file under the
// test's log directory, the bounded tail JUnit shows, the live line for the console, the workload's
// last error per rank, and the text the parser reads (rank 0's whole log).
import { createWriteStream, existsSync, openSync, readSync, closeSync, statSync, type WriteStream } from "node:fs";
import { join } from "node:path";
import type { RankLog } from "../../lib/core/types.ts";
import { rankOfLine, workloadError } from "./rank-lines.ts";
import { ensurePrivateDir, openPrivate } from "../../lib/core/private-fs.ts";

/** lines of the tail shown in JUnit system-out and the report */
export const TAIL_LINES = 40;
/**
 * The most of rank 0's log the parser is given. Results are printed last, so the end is kept, and
 * the text says what was left out: an output is never cut silently. 64 MiB is far above any
 * workload's output (a 2 h training run with telemetry writes a few MiB).
 */
export const OUTPUT_MAX = 64 * 1024 * 1024;

export const rankLogPath = (dir: string, rank: number) => join(dir, `rank-${rank}.log`);

/** One tail line: which host and rank said it. */
export function tailLine(rank: number, text: string, host?: string): string {
  return `[${host ? `${host} ` : ""}rank ${rank}] ${text}`;
}

/** Rank 0's log as the parser reads it, its start replaced by a note when it is over OUTPUT_MAX. */
export function readOutput(path: string, max = OUTPUT_MAX): string {
  if (!existsSync(path)) return "";
  const size = statSync(path).size;
  if (size <= max) return new TextDecoder().decode(readRange(path, 0, size));
  const kept = new TextDecoder().decode(readRange(path, size - max, max));
  // the first kept line is likely cut in the middle
  const rest = kept.slice(kept.indexOf("\n") + 1);
  return `gpucheck: rank 0's log is ${size} bytes, over the ${max} bytes read for judging: only its last lines follow (the whole log: ${path})\n${rest}`;
}

function readRange(path: string, from: number, length: number): Uint8Array {
  const buf = Buffer.alloc(length);
  const fd = openSync(path, "r");
  try {
    let got = 0;
    while (got < length) {
      const n = readSync(fd, buf, got, length - got, from + got);
      if (n <= 0) break;
      got += n;
    }
    return buf.subarray(0, got);
  } finally {
    closeSync(fd);
  }
}

export interface UnitLogOptions {
  /** this unit's log directory: logs/<test>/<unit>/ */
  dir: string;
  unit: string;
  onLine(unit: string, rank: number, line: string): void;
  /** false where the ranks write their logs themselves (srun on a shared filesystem): only read them */
  write?: boolean;
}

export class UnitLog {
  readonly dir: string;
  private readonly files = new Map<number, WriteStream>();
  private readonly tailBuf: string[] = [];
  private readonly errors = new Map<number, string>();
  private readonly own = new Map<string, string[]>();
  /** after close(), a straggling line (an attach stream's last bytes) still reaches the console, not a closed file */
  private closed = false;

  constructor(private readonly o: UnitLogOptions) {
    this.dir = o.dir;
    ensurePrivateDir(o.dir);
  }

  path(rank: number): string {
    return rankLogPath(this.dir, rank);
  }

  /** Every rank gets its log, even one that prints nothing, so every path given out exists. */
  open(rank: number): void {
    if (this.o.write === false || this.closed || this.files.has(rank)) return;
    // opened here (O_NOFOLLOW, private): a symlink planted as a rank log is refused, never written through
    this.files.set(rank, createWriteStream("", { fd: openPrivate(this.path(rank), "append") }));
  }

  /** One line of one rank. `host` names it in the tail. */
  line(rank: number, text: string, host?: string): void {
    if (this.o.write !== false && !this.closed) {
      this.open(rank);
      this.files.get(rank)!.write(`${text}\n`);
    }
    const err = workloadError(text);
    if (err !== undefined) this.errors.set(rank, err);
    // telemetry samples would push people's lines out of the tail
    if (!text.includes("GPUCHECK_TELEMETRY")) {
      this.tailBuf.push(tailLine(rank, text, host));
      if (this.tailBuf.length > TAIL_LINES * 5) this.tailBuf.splice(0, this.tailBuf.length - TAIL_LINES);
    }
    this.o.onLine(this.o.unit, rank, text);
  }

  /**
   * One line of a process (a rank, or a launcher of `ranks`), routed by the one `[rank N]` rule.
   * `source` names the process (a pod, a container, a host's launcher) so its own unprefixed lines
   * can be asked for later.
   */
  processLine(source: string, ranks: readonly number[], prefixed: boolean, raw: string, host?: string): void {
    const [rank, text] = rankOfLine(raw, ranks, prefixed);
    if (prefixed && text === raw) {
      const mine = this.own.get(source) ?? [];
      mine.push(text);
      if (mine.length > TAIL_LINES) mine.shift();
      this.own.set(source, mine);
    }
    this.line(rank, text, host);
  }

  /** a launcher's own lines (not prefixed with a rank), newest last */
  sourceLines(source: string): string[] {
    return this.own.get(source) ?? [];
  }

  /** the workload's last `gpucheck-workload: error: …` on this rank */
  lastError(rank: number): string | undefined {
    return this.errors.get(rank);
  }

  tail(): string {
    return this.tailBuf.slice(-TAIL_LINES).join("\n");
  }

  /** the text the parser reads: rank 0's log */
  output(): string {
    return readOutput(this.path(0));
  }

  /** The unit's ranks: those the platform knows of plus any that printed, each with a log file. */
  ranks(known: readonly number[], exitCode: (rank: number) => number | null, host: (rank: number) => string): RankLog[] {
    const all = [...new Set([...known, ...this.files.keys()])].sort((a, b) => a - b);
    if (this.o.write !== false) for (const rank of all) if (!this.files.has(rank)) closeSync(openPrivate(this.path(rank), "append"));
    return all.map((rank) => ({ rank, host: host(rank), path: this.path(rank), exitCode: exitCode(rank) }));
  }

  /** Flushes and closes the log files; call before output(). */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.all([...this.files.values()].map((f) => new Promise<void>((r) => (f.closed ? r() : f.end(r)))));
  }
}
