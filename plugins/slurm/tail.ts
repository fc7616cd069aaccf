// Live output without scheduler calls: srun writes each rank's output to a file in the job's
// directory (shared with this host), and these readers pick up what was appended since last time.
import { closeSync, openSync, readSync } from "node:fs";

/** Complete lines appended to one file since the last read; the file may not exist yet. */
export class FileTail {
  private fd: number | undefined;
  private pos = 0;
  private partial = "";
  private readonly decoder = new TextDecoder();

  constructor(readonly path: string) {}

  read(): string[] {
    if (this.fd === undefined) {
      try {
        this.fd = openSync(this.path, "r");
      } catch {
        return [];
      }
    }
    const buf = Buffer.allocUnsafe(64 * 1024);
    let text = "";
    for (;;) {
      const n = readSync(this.fd, buf, 0, buf.length, this.pos);
      if (n <= 0) break;
      this.pos += n;
      text += this.decoder.decode(buf.subarray(0, n), { stream: true });
    }
    const parts = (this.partial + text).split("\n");
    this.partial = parts.pop()!;
    return parts.map((l) => l.replace(/\r$/, ""));
  }

  /** The last line even without its newline (the file is complete). */
  finish(): string[] {
    const lines = this.read();
    if (this.partial) lines.push(this.partial);
    this.partial = "";
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
    return lines;
  }
}

/** Every rank log of every unit: <dir>/<unit>/rank-<N>.log → onLine(unit, N, line). */
export class RankTails {
  private readonly tails: Array<{ unit: string; rank: number; tail: FileTail }> = [];

  constructor(
    dir: string,
    units: Array<{ unit: string; ranks: number }>,
    private readonly onLine: (unit: string, rank: number, line: string) => void,
  ) {
    for (const { unit, ranks } of units) {
      for (let rank = 0; rank < ranks; rank++) this.tails.push({ unit, rank, tail: new FileTail(`${dir}/${unit}/rank-${rank}.log`) });
    }
  }

  poll(): void {
    for (const t of this.tails) for (const line of t.tail.read()) this.onLine(t.unit, t.rank, line);
  }

  finish(): void {
    for (const t of this.tails) for (const line of t.tail.finish()) this.onLine(t.unit, t.rank, line);
  }
}
