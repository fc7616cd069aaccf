// The assess stage: run records → verdicts. Pure (no files, no clock): the same records give the
// same TestResult, whether they come straight from a run or back from disk (`gpucheck judge`).
import { judgeTest, judgeUnit } from "./judge.ts";
import { paramsOf } from "../kinds/mod.ts";
import { measure, measureFleet } from "./measure.ts";
import { collectInventories } from "../kinds/inventory/parse.ts";
import { summariseTelemetry } from "../parsers/telemetry.ts";
import type { Expectation, Kind, Measurement, NodeInventory, PlannedTest, ResultsFile, TelemetrySummary, TestResult, UnitResult } from "../core/types.ts";
import type { RunRecord } from "../execute/record.ts";
import { baselineMeasurement } from "./baseline.ts";
import { simulatedNote } from "../parsers/simulated.ts";
import { testResult } from "./test-result.ts";

/** What assess needs of a test: the run's plan, or the judging suite's test for `gpucheck judge`. */
export interface AssessedTest {
  name: string;
  kind: Kind;
  expect: Expectation[];
  /** the test's resolved kind block (an inventory's hcas, link count and pins), as the kind reads it */
  params: unknown;
  /** the suite's GPUs per node: above 0, a rank on a CPU or sharing a GPU is an error (lib/assess/devices.ts) */
  gpusPerNode?: number;
}

export function assessTest(test: PlannedTest, records: RunRecord[], baseline?: ResultsFile): TestResult {
  const units = assessUnits({ name: test.name, kind: test.kind, expect: test.expect, params: paramsOf(test.spec), gpusPerNode: test.gpusPerNode }, records, baseline);
  const missing = missingUnits(test, records);
  if (!missing.length) return testResult(test, units, judgeTest(units));
  // unmeasured is never passed: a node that never reported makes the test an error whatever the others said
  return { ...testResult(test, units, "error"), missing };
}

/** The planned units no record answers for: the nodes whose result never came. Nodes known only at run time (a `{{node}}` slot) were never expected by name. */
function missingUnits(test: PlannedTest, records: RunRecord[]): string[] {
  const got = new Set(records.map((r) => r.unit));
  return (test.units ?? [])
    .filter((u) => !u.eachNode && !u.name.includes("{{"))
    .map((u) => u.name)
    .filter((name) => !got.has(name));
}

export function assessUnits(test: AssessedTest, records: RunRecord[], baseline?: ResultsFile): UnitResult[] {
  const measured = measureUnits(test, records);
  // per-component outlier rules `over: fleet` compare each part with every unit's parts
  const fleet = measured.map((x) => x.measurement);
  return measured.map(({ r, telemetry, measurement, parseProblem }) => {
    const message = [r.message, r.status === "completed" ? parseProblem : undefined].filter(Boolean).join("; ") || undefined;
    const verdict = judgeUnit(
      test.expect,
      { status: r.status, message, measurement, gpusPerNode: test.gpusPerNode, kind: test.kind },
      baselineMeasurement(baseline, test.name, r.unit),
      fleet,
    );
    return {
      unit: r.unit,
      hosts: r.hosts,
      status: r.status,
      ...(message ? { message } : {}),
      startedAt: r.startedAt,
      endedAt: r.endedAt,
      durationS: (Date.parse(r.endedAt) - Date.parse(r.startedAt)) / 1000,
      measurement,
      verdict,
      logs: r.ranks.map((x) => x.log),
      tail: r.tail,
      telemetry,
      ...(r.lost ? { lost: r.lost } : {}),
      ...simulatedOf(r),
    };
  });
}

function simulatedOf(r: RunRecord): { simulated?: string } {
  const note = simulatedNote([...r.texts, r.output]);
  return note ? { simulated: note } : {};
}

interface Measured {
  r: RunRecord;
  telemetry: TelemetrySummary;
  /** null when the unit never ran or its output was unusable (parseProblem says why) */
  measurement: Measurement | null;
  parseProblem?: string;
}

/** Each unit's output → its Measurement (the kind's parser), then what only the units together show. */
function measureUnits(test: AssessedTest, records: RunRecord[]): Measured[] {
  const measured = records.map((r): Measured => {
    const telemetry = summariseTelemetry(r.texts);
    if (r.status === "skipped" || r.status === "infra") return { r, telemetry, measurement: null };
    try {
      return { r, telemetry, measurement: measure(test.kind, r.output, telemetry, r.texts, test.params) };
    } catch (err) {
      return { r, telemetry, measurement: null, parseProblem: (err as Error).message };
    }
  });
  // a node is only "consistent" next to the others: compare them once all have reported
  measureFleet(
    test.kind,
    measured.map((x) => x.measurement),
    test.params,
  );
  return measured;
}

/** The nodes' inventories the records' logs carry, merged over what is known: the latest per host wins. */
export function mergeInventory(have: NodeInventory[], records: RunRecord[]): NodeInventory[] {
  const byHost = new Map(have.map((i) => [i.hostname, i]));
  for (const inv of records.flatMap((r) => collectInventories(r.texts))) byHost.set(inv.hostname, inv);
  return [...byHost.values()];
}
