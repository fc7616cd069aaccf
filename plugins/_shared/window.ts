// Per-node units in a sliding window, as `pdsh -f`: at most `size` at once, the next starting as
// soon as one ends, so 1,000 nodes are never 1,000 connections (ssh) or 1,000 pods (k8s) at once.
// Each unit has the test's timeout to itself: a node that never answers costs one timeout, never
// the fleet's, and the executor gives the test one timeout per turn (lib/execute/run-test.ts).
import { stopReason } from "../../lib/core/stop.ts";
import type { UnitRun } from "../../lib/core/types.ts";
import type { RunContext } from "../../lib/core/platform.ts";
import { limiter } from "./limit.ts";
import { ended } from "./unit-result.ts";

/** One node per unit and no node in two: the units need not run at once, so they may take turns. */
export function takesTurns(nodesOfUnits: ReadonlyArray<ReadonlyArray<string>>): boolean {
  return nodesOfUnits.length > 1 && nodesOfUnits.every((n) => n.length === 1) && new Set(nodesOfUnits.map((n) => n[0])).size === nodesOfUnits.length;
}

export interface Window<U> {
  size: number;
  /** the run's signal: once it aborts, no further unit starts */
  signal: AbortSignal;
  timeoutMs: number;
  /** how the platform calls its nodes in messages: "host", "node" */
  noun: string;
  /** the unit's name and its one node */
  placeOf(u: U): { unit: string; node: string };
  /** the run's context: told when a unit's turn comes and when it ends, for the progress's counts */
  ctx: Pick<RunContext<unknown>, "unitStarted" | "unitEnded">;
}

/** Runs each unit in its turn with its own signal (the run's, or its own timeout); units whose turn never came get notReached. */
export function inWindow<U>(units: U[], w: Window<U>, run: (u: U, signal: AbortSignal) => Promise<UnitRun>): Promise<UnitRun[]> {
  const slots = limiter(w.size);
  return Promise.all(
    units.map((u) =>
      slots.run(async () => {
        if (w.signal.aborted) return ended(w.ctx, notReached(w.placeOf(u), w));
        w.ctx.unitStarted?.(w.placeOf(u).unit);
        const own = new AbortController();
        const timer = setTimeout(() => own.abort("timeout"), w.timeoutMs);
        try {
          return ended(w.ctx, await run(u, AbortSignal.any([w.signal, own.signal])));
        } finally {
          clearTimeout(timer);
        }
      }),
    ),
  );
}

/** A unit whose turn never came: the run was stopped first. Never a pass: the executor judges it not run. */
export function notReached(at: { unit: string; node: string }, w: Pick<Window<unknown>, "signal" | "size" | "noun">): UnitRun {
  const now = new Date().toISOString();
  const by = stopReason(w.signal);
  const message = `${by === "timeout" ? "timed out" : "cancelled"} before ${w.noun} ${at.node} was reached (at most ${w.size} ${w.noun}s at a time)`;
  return { unit: at.unit, hosts: [at.node], status: by, message, startedAt: now, endedAt: now, ranks: [], output: "", tail: "" };
}
