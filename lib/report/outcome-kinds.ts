// The outcomes the ecosystem outputs (ctrf.json, metrics.prom) map one by one. "unfinished" is what
// a run written ahead says of a test that never ended (issue 27 item 1): it is listed here until it
// is one of Outcome's own members, so the writers' switches already name it and fail to compile on
// any outcome they do not know.
import type { Outcome } from "../core/types.ts";

export type AnyOutcome = Outcome | "unfinished";

/** What a test that never ended says, in junit.xml and in every output beside it. */
export const UNFINISHED_MESSAGE = "not finished: the run stopped before this test ended";

/** A run is passed only when it ended, closed every test, and passed: a killed or partial run never is. */
export function runPassed(r: { outcome: AnyOutcome; complete: boolean; endedAt: string | null }): boolean {
  return r.complete && r.endedAt !== null && r.outcome === "passed";
}

/** Compile-time proof that a switch named every outcome; at run time an unknown one is a bug, said as such. */
export function unknownOutcome(o: never): never {
  throw new Error(`internal error: outcome ${JSON.stringify(o)} has no mapping in this output`);
}
