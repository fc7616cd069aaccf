// A fleet: a run with a test of more units than FLEET_UNITS (a per-node test over more than 32
// nodes). Its outputs change shape so they stay small and readable at 1,000 nodes: results.json writes
// a unit per line with telemetry series in files of their own, junit.xml has a testsuite per test,
// report.html shows verdicts by exception (lib/report/html-fleet.ts).
import type { ResultsFile } from "../core/types.ts";

export const FLEET_UNITS = 32;

export function isFleet(r: ResultsFile): boolean {
  return r.tests.some((t) => t.units.length > FLEET_UNITS);
}
