// The counts a person watches while a per-node test runs over many nodes: how many are done, how
// many of those failed or were unreachable, how many are running, and which have been running
// longest (a hung or slow node shows there long before its timeout).
import type { UnitRun } from "../core/types.ts";
import { formatDuration } from "../core/quantity.ts";

/** How many of the longest-running nodes are named. */
export const SLOWEST_SHOWN = 3;

export class NodeTally {
  private readonly running = new Map<string, number>();
  private readonly ended = new Set<string>();
  done = 0;
  failed = 0;
  unreachable = 0;

  constructor(private readonly expected: number | undefined) {}

  /** from the platform's word, or from the node's first line: whichever comes first */
  started(unit: string, at: number): boolean {
    if (this.running.has(unit) || this.ended.has(unit)) return false;
    this.running.set(unit, at);
    return true;
  }

  /** false for a node already counted (the executor reports every unit again when the platform returns) */
  end(run: UnitRun): boolean {
    if (this.ended.has(run.unit)) return false;
    this.running.delete(run.unit);
    this.ended.add(run.unit);
    this.done++;
    // before judging: a node that completed may still fail its thresholds, so "failed" counts only
    // what already went wrong (a rank's error, a timeout); infra is a node gpucheck could not use
    if (run.status === "failed" || run.status === "timeout") this.failed++;
    if (run.status === "infra") this.unreachable++;
    return true;
  }

  /** "412 of 1000 done (2 failed, 1 unreachable), 64 running" */
  counts(): string {
    const bad = [this.failed && `${this.failed} failed`, this.unreachable && `${this.unreachable} unreachable`].filter(Boolean);
    return `${this.done}${this.expected === undefined ? "" : ` of ${this.expected}`} done${bad.length ? ` (${bad.join(", ")})` : ""}, ${this.running.size} running`;
  }

  /** "h017 41s, h230 39s, h003 38s": the nodes running longest, or "" when none runs */
  slowest(now: number): string {
    return [...this.running]
      .sort((a, b) => a[1] - b[1] || (a[0] < b[0] ? -1 : 1))
      .slice(0, SLOWEST_SHOWN)
      .map(([unit, at]) => `${unit} ${formatDuration((now - at) / 1000)}`)
      .join(", ");
  }

  get anyRunning(): boolean {
    return this.running.size > 0;
  }
}

/** After the test: the nodes that took longest, from their own start and end. */
export function slowestUnits(units: ReadonlyArray<{ unit: string; durationS: number }>): string {
  return [...units]
    .sort((a, b) => b.durationS - a.durationS || (a.unit < b.unit ? -1 : 1))
    .slice(0, SLOWEST_SHOWN)
    .map((u) => `${u.unit} ${formatDuration(u.durationS)}`)
    .join(", ");
}
