// The terminal half of the progress display: lines scroll, a status block stays at the bottom.
// Every update is one write (erase the block, print queued lines, draw the block again) so the
// screen never shows half a frame; updates are batched because ranks can print thousands of lines a
// second and each redraw costs a write.
import { stripAnsi } from "../core/xml.ts";

const BATCH_MS = 50;
const TICK_MS = 1000;

export class TtyBlock {
  private queued: string[] = [];
  private drawn = 0;
  private pending: ReturnType<typeof setTimeout> | null = null;
  private readonly tick: ReturnType<typeof setInterval>;
  private closed = false;

  constructor(
    private readonly stream: NodeJS.WriteStream,
    private readonly render: () => string[],
  ) {
    // the elapsed time moves even when nothing is printed; unref: never keep gpucheck alive for it
    this.tick = setInterval(() => this.flush(), TICK_MS);
    this.tick.unref?.();
    this.flush();
  }

  print(line: string): void {
    if (this.closed) return void this.stream.write(`${line}\n`);
    this.queued.push(line);
    this.schedule();
  }

  redraw(): void {
    if (!this.closed) this.schedule();
  }

  close(): void {
    if (this.closed) return;
    clearInterval(this.tick);
    if (this.pending) clearTimeout(this.pending);
    this.stream.write(this.erase() + this.queued.map((l) => `${l}\n`).join(""));
    this.queued = [];
    this.drawn = 0;
    this.closed = true;
  }

  private schedule(): void {
    if (this.pending) return;
    this.pending = setTimeout(() => this.flush(), BATCH_MS);
    this.pending.unref?.();
  }

  private flush(): void {
    this.pending = null;
    if (this.closed) return;
    const width = Math.max(20, (this.stream.columns || 80) - 1);
    // one screen row per block line, or the cursor-up count would be wrong after wrapping
    const block = this.render().map((l) => (stripAnsi(l).length > width ? `${stripAnsi(l).slice(0, width - 1)}…` : l));
    const lines = this.queued.map((l) => `${l}\n`).join("");
    this.queued = [];
    this.stream.write(`${this.erase()}${lines}${block.map((l) => `${l}\n`).join("")}`);
    this.drawn = block.length;
  }

  /** Cursor up over the block, to column 0, clear to the end of the screen. */
  private erase(): string {
    return this.drawn > 0 ? `\x1b[${this.drawn}A\r\x1b[J` : "";
  }
}
