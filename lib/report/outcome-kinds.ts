// The outcomes the ecosystem outputs (ctrf.json, metrics.prom) map one by one, "unfinished" (what a
// run written ahead says of a test that never ended) among them: the writers' switches name every
// outcome and fail to compile on one they do not know.
import type { Outcome } from "../core/types.ts";

export type AnyOutcome = Outcome;

/** What a test that never ended says, in junit.xml and in every output beside it. */
export { UNFINISHED_MESSAGE } from "../execute/not-started.ts";

/** A run is passed only when it ended, closed every test, and passed: a killed or partial run never is. */
export function runPassed(r: { outcome: AnyOutcome; complete: boolean; endedAt: string | null }): boolean {
  return r.complete && r.endedAt !== null && r.outcome === "passed";
}

/** Compile-time proof that a switch named every outcome; at run time an unknown one is a bug, said as such. */
export function unknownOutcome(o: never): never {
  throw new Error(`internal error: outcome ${JSON.stringify(o)} has no mapping in this output`);
}
