// A unit's per-component checks grouped by the part they judged, for the outputs that name parts
// (JUnit's testcase per part, the summary's failing components, report.html, the certificate).
import type { Check, Outcome, PartId, UnitResult } from "../core/types.ts";
import { partKey } from "../core/parts.ts";

export interface PartChecks {
  part: PartId;
  /** its metric checks, and its transport check where the part had its own NCCL run (a rail) */
  checks: Check[];
}

/** Each part's checks, in the order the parts were first judged; [] for a unit without per-component checks. */
export function partChecks(u: UnitResult): PartChecks[] {
  const byPart = new Map<string, PartChecks>();
  for (const c of u.verdict.checks) {
    if (!("part" in c) || !c.part) continue;
    const key = partKey(c.part);
    const have = byPart.get(key);
    if (have) have.checks.push(c);
    else byPart.set(key, { part: c.part, checks: [c] });
  }
  return [...byPart.values()];
}

/** A check that could not be judged makes the part an error, a missed one a failure: never a pass. */
export function partOutcome(checks: Check[]): Outcome {
  if (checks.some((c) => c.measured === null)) return "error";
  return checks.some((c) => !c.ok) ? "failed" : "passed";
}
