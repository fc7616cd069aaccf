// Verdicts: thresholds from the suite against what a unit measured. Pure: the executor, `gpucheck judge`
// and the tests all call the same functions.
//
// The outcomes stay apart because they mean different things to the person accepting a cluster
// (ReFrame's SanityError vs PerformanceError):
//   passed   it ran to the end and met every threshold
//   failed   it ran to the end and missed a threshold, or counted wrong elements (a real finding)
//   error    it could not be judged: not launched, crashed, timed out, cancelled, output unusable or
//            incomplete (an nccl-tests log without its footer is never a pass), a threshold on a metric
//            the output does not contain, or a relative threshold without a baseline
//   skipped  not attempted (node drained/down)
import type { AnyKind } from "../core/kind.ts";
import type { Check, Expectation, Kind, Measurement, Outcome, TestResult, UnitResult, UnitStatus, Verdict } from "../core/types.ts";
import { checkExpectation, implicitChecks, isUnjudged } from "./checks.ts";
import { KINDS } from "../kinds/mod.ts";
import { componentChecks, componentTransportChecks } from "./components.ts";
import { fleetCheck } from "./fleet-check.ts";
import { deviceProblems } from "./devices.ts";
import { withRemediations } from "./remediation.ts";

export { lookupMetric } from "./checks.ts";

export interface UnitRunForJudge {
  status: UnitStatus;
  message?: string;
  measurement: Measurement | null;
  /** false when the parser saw the output end early (also read from measurement.metrics.complete === 0) */
  complete?: boolean;
  /** the suite's GPUs per node: above 0, every rank's device must be its own named GPU (lib/assess/devices.ts) */
  gpusPerNode?: number;
  /** the test's kind: every missed check gets its remediation (lib/assess/remediation.ts) */
  kind?: Kind;
}

/**
 * `baseline`: the same test and unit in the baseline run, for relative thresholds. undefined = no
 * baseline was given; null = one was given but has no usable result for this test and unit.
 * `fleet`: every unit's measurement of the test, for per-component outlier rules `over: fleet`.
 */
export function judgeUnit(expect: Expectation[], run: UnitRunForJudge, baseline?: Measurement | null, fleet: Array<Measurement | null> = []): Verdict {
  const v = judgeChecks(expect, run, baseline, fleet);
  return run.kind ? { ...v, checks: withRemediations(run.kind, v.checks, run.measurement) } : v;
}

function judgeChecks(expect: Expectation[], run: UnitRunForJudge, baseline: Measurement | null | undefined, fleet: Array<Measurement | null>): Verdict {
  if (run.status === "skipped") return { outcome: "skipped", reason: run.message ?? "not attempted", checks: [] };

  const m = run.measurement;
  const incomplete = run.complete === false || m?.metrics.complete === 0;
  const checks: Check[] = [];
  const problems: string[] = [];
  // Thresholds are not evaluated on a cut-off output: "the largest size" would be wherever it stopped.
  if (m && !incomplete) {
    for (const e of expect) {
      if (e.perComponent) {
        checks.push(...componentChecks(e, m, fleet.length ? fleet : [m]));
        continue;
      }
      if (e.fleet) {
        checks.push(fleetCheck(e, m, fleet.length ? fleet : [m]));
        continue;
      }
      const perPart = componentTransportChecks(e, m);
      if (perPart) {
        checks.push(...perPart);
        continue;
      }
      const r = checkExpectation(e, m, baseline);
      checks.push(...r.checks);
      problems.push(...r.problems);
    }
    checks.push(...implicitChecks(expect, m));
    if (run.kind) checks.push(...((KINDS[run.kind] as AnyKind).checks?.(m) ?? []));
  }
  // a GPU suite's figure from a CPU, or from one GPU twice, is never judged as the node's GPUs; said
  // first: it explains every threshold that could not be judged after it
  const devices = m?.devices ? deviceProblems(m.devices, run.gpusPerNode ?? 0) : [];
  const missed = checks.filter((c) => !c.ok && !isUnjudged(c));
  const unjudged = [...devices, ...checks.filter(isUnjudged).map((c) => c.message), ...problems];

  const stopped = stoppedReason(run);
  if (stopped) return { outcome: "error", reason: stopped, checks };
  if (!m) {
    const reason =
      run.status === "failed"
        ? `crashed before reporting results: ${run.message ?? "a rank exited non-zero"}`
        : `output unusable: ${run.message ?? "no result found in the workload output"}`;
    return { outcome: "error", reason, checks };
  }
  if (incomplete) return { outcome: "error", reason: incompleteReason(run), checks };
  if (run.status === "failed") {
    // A rank exited non-zero after printing a complete result. If a threshold or the correctness
    // check failed, that finding is the verdict (nccl-tests exits non-zero on #wrong); otherwise it crashed.
    const why = run.message ?? "a rank exited non-zero";
    if (missed.length > 0) return { outcome: "failed", reason: `${joinMessages(missed)} (${why})`, checks };
    return { outcome: "error", reason: `crashed after reporting results: ${why}`, checks };
  }
  // both are said: what could not be judged makes it an error, what was missed is still a finding
  if (unjudged.length > 0) return { outcome: "error", reason: [...unjudged, ...(missed.length ? [`also failed: ${joinMessages(missed)}`] : [])].join("; "), checks };
  if (missed.length > 0) return { outcome: "failed", reason: joinMessages(missed), checks };
  if (checks.length === 0) return { outcome: "passed", reason: "recorded (no thresholds): completed, with nothing to judge it against", checks };
  return { outcome: "passed", reason: `${checks.length} of ${checks.length} checks passed: ${checks[0].message}`, checks };
}

/** Launch and runtime problems, whatever the output says: a timeout with a result printed is still not a clean run. */
function stoppedReason(run: UnitRunForJudge): string | null {
  const lead = run.status === "timeout" ? "timed out" : run.status === "cancelled" ? "cancelled" : run.status === "infra" ? "could not run" : null;
  if (lead === null) return null;
  if (!run.message) return lead;
  // platforms often say it already ("timed out after 4s: killed …"): not "timed out: timed out …"
  return run.message.toLowerCase().startsWith(lead) ? run.message : `${lead}: ${run.message}`;
}

function incompleteReason(run: UnitRunForJudge): string {
  const base = "output incomplete: the workload output ended before its summary (hung, killed or crashed)";
  return run.message ? `${base}: ${run.message}` : base;
}

function joinMessages(checks: Check[]): string {
  return checks.map((c) => c.message).join("; ");
}

// a test that never ended outranks every verdict: the run it belongs to can be no more than unfinished
const SEVERITY: Record<Outcome, number> = { skipped: 0, passed: 1, failed: 2, error: 3, unfinished: 4 };

/** The worst outcome wins (error > failed > passed); only all-skipped is skipped. Empty → skipped. */
export function aggregateOutcome(outcomes: Outcome[]): Outcome {
  let worst: Outcome = "skipped";
  for (const o of outcomes) if (SEVERITY[o] > SEVERITY[worst]) worst = o;
  return worst;
}

export function judgeTest(units: UnitResult[]): Outcome {
  return aggregateOutcome(units.map((u) => u.verdict.outcome));
}

/**
 * The run's outcome over its tests. An isolating test's units are evidence (a pair that failed
 * because of a bad node is not itself the finding): the test's own verdict counts for it.
 */
export function judgeRun(tests: TestResult[]): Outcome {
  return aggregateOutcome(tests.flatMap((t) => (t.isolation ? [t.outcome] : t.units.map((u) => u.verdict.outcome))));
}

/** gpucheck's exit code for a run's outcome: 0 passed (or nothing ran), 1 failed, 3 error. */
export function exitCodeFor(outcome: Outcome): number {
  // a run that never ended is an error of the run, like one that could not measure
  return outcome === "error" || outcome === "unfinished" ? 3 : outcome === "failed" ? 1 : 0;
}

/**
 * The number shown in tables: the kind's headline metric (lib/kinds/), in its canonical unit; when the
 * test puts no threshold on it but does on another of the kind's own metrics, the first of those, so
 * that the line shows what decided the verdict (the transformer's TFLOP/s, not its samples/s).
 */
export function headlineOf(kind: Kind, expect: Expectation[], params?: unknown): { metric: string; unit: string } {
  const k = KINDS[kind] as AnyKind;
  const metrics = k.metrics as Record<string, { unit: string }>;
  const preferred = k.headlineFor?.(params) ?? k.headline;
  const metric = expect.some((x) => x.metric === preferred) ? preferred : (expect.find((x) => x.metric in metrics)?.metric ?? preferred);
  const e = expect.find((x) => x.metric === metric);
  return { metric, unit: e?.unit ?? metrics[metric]?.unit ?? "" };
}
