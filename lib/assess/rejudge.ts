// Judging a whole saved run again: `gpucheck judge <dir> --suite other.yaml`. Nothing is rerun: the
// saved run records and rank logs are parsed again (so a parser fixed since applies to an old run)
// and meet another suite's thresholds (and optionally a baseline). A test whose logs are not all
// there keeps its saved measurements, and a note says so.
import { SuiteError } from "../core/errors.ts";
import type { SavedRun } from "../execute/saved-runs.ts";
import { headlineOf, judgeRun, judgeTest, judgeUnit } from "./judge.ts";
import { headlineRule, isolatedOutcome, replayIsolation } from "./isolation.ts";
import { paramsOf } from "../kinds/mod.ts";
import { remeasure } from "./measure.ts";
import type { ResultsFile, Suite, TestResult, TestSpec } from "../core/types.ts";
import { assessUnits, mergeInventory } from "./assess.ts";
import { baselineMeasurement } from "./baseline.ts";

export interface Rejudged {
  results: ResultsFile;
  /** tests the suite and the results do not share, tests not parsed again and why: said out loud, never silently dropped */
  notes: string[];
}

export function rejudgeResults(
  saved: ResultsFile,
  suite: Suite,
  opts: { baseline?: ResultsFile; baselinePath?: string; now?: Date; runs?: ReadonlyMap<string, SavedRun> } = {},
): Rejudged {
  const notes: string[] = [];
  const reparse: string[] = [];
  let inventory = saved.inventory;
  const specs = new Map(suite.tests.map((t) => [t.name, t]));
  const tests = saved.tests.map((t) => {
    // a test the run never ended has nothing to judge: it stays unfinished, whatever the suite
    if (t.outcome === "unfinished") return t;
    const spec = specs.get(t.name);
    if (!spec) {
      notes.push(`test "${t.name}" is not in suite "${suite.name}" (${suite.source.path}): its verdict is kept as it was`);
      return t;
    }
    if (spec.kind !== t.kind) {
      throw new SuiteError(`${suite.source.path}: test "${t.name}" has kind "${spec.kind}" there but "${t.kind}" in the results: cannot judge one with the other's thresholds`);
    }
    const run = opts.runs?.get(t.name);
    if (run?.note) reparse.push(run.note);
    if (run?.records) {
      const units = assessUnits({ name: t.name, kind: spec.kind, expect: spec.expect, params: paramsOf(spec), gpusPerNode: t.gpusPerNode }, run.records, opts.baseline);
      inventory = mergeInventory(inventory, run.records);
      return withIsolation({ ...t, expect: spec.expect, headline: headlineOf(t.kind, spec.expect, paramsOf(spec)), units, outcome: judgeTest(units) }, t, spec, notes);
    }
    // a kind whose metrics depend on the judging suite's block (an inventory: its HCAs, link count,
    // pinned settings) recounts them from the saved raw measurement
    const measured = remeasure(
      t.kind,
      t.units.map((u) => u.measurement),
      paramsOf(spec),
    );
    const units = t.units.map((u, i) => ({
      ...u,
      measurement: measured[i]!,
      verdict: judgeUnit(
        spec.expect,
        { status: u.status, message: u.message, measurement: measured[i]!, gpusPerNode: t.gpusPerNode, kind: t.kind },
        baselineMeasurement(opts.baseline, t.name, u.unit),
        measured,
      ),
    }));
    return withIsolation({ ...t, expect: spec.expect, headline: headlineOf(t.kind, spec.expect, paramsOf(spec)), units, outcome: judgeTest(units) }, t, spec, notes);
  });
  const ran = new Set(saved.tests.map((t) => t.name));
  for (const spec of suite.tests) if (!ran.has(spec.name)) notes.push(`test "${spec.name}" of suite "${suite.name}" is not in these results: nothing to judge`);

  let outcome = judgeRun(tests);
  // as when the run itself ended early: a run that stopped before its last test is not a pass
  if (!saved.complete && (outcome === "passed" || outcome === "skipped")) outcome = "error";
  // a run its preflight stopped measured nothing: no suite can make that a pass
  if (saved.preflight && !saved.preflight.passed) outcome = "error";
  const results: ResultsFile = {
    ...saved,
    tests,
    inventory,
    outcome,
    judgedWith: { path: suite.source.path, sha256: suite.source.sha256, at: (opts.now ?? new Date()).toISOString() },
  };
  if (opts.baselinePath !== undefined) results.baseline = opts.baselinePath;
  return { results, notes: [...notes, ...reparse] };
}

/** An isolating test judged again: its saved rounds fed to its pattern with the units' new verdicts. */
function withIsolation(judged: TestResult, saved: TestResult, spec: TestSpec, notes: string[]): TestResult {
  const replayed = replayIsolation(saved, judged.units, headlineRule(spec.kind, spec.expect, paramsOf(spec)));
  if (!replayed) {
    if (saved.isolation) notes.push(`test "${saved.name}": its isolation was saved without the hosts it ran over: the nodes' verdicts are kept as the run judged them`);
    return saved.isolation ? { ...judged, isolation: saved.isolation, outcome: isolatedOutcome(saved.isolation, judged.units) } : judged;
  }
  if (replayed.note) notes.push(replayed.note);
  return { ...judged, isolation: replayed.isolation, outcome: isolatedOutcome(replayed.isolation, judged.units) };
}
