// The pipeline of `gpucheck suite`, in one place: preflight → for each test: execute (run it through
// its platform) → assess (parse and judge its records) → write (results.json and junit.xml after
// every test, so that a later crash, timeout or Ctrl-C still leaves every finished test on disk; the
// tests not yet ended written ahead as unfinished) → the tests that never started accounted for.
import { join, resolve } from "node:path";
import { workloadFiles, workloadHash } from "../core/assets.ts";
import { assessTest, mergeInventory } from "../assess/assess.ts";
import { collectEvidence } from "../evidence/run.ts";
import { closeRun, writtenAhead } from "../assess/run-outcome.ts";
import { executeTest, saveRecords, type TestEnv, testLogDir } from "../execute/run-test.ts";
import { notRunnableRecord } from "../execute/not-runnable.ts";
import type { RunRecord } from "../execute/record.ts";
import { type IsolationRun, isolatedResult, isolationWanted, runIsolation } from "./isolate-test.ts";
import { judgeRun } from "../assess/judge.ts";
import { RESOLVED_SUITE } from "../load/read.ts";
import { resolvePlatform } from "../plan/plan.ts";
import { needsOf } from "../preflight/needs.ts";
import { preflightSkipReason, runPreflight } from "../preflight/run.ts";
import type { Progress } from "../core/progress.ts";
import { PREFLIGHT_ONLY } from "../execute/not-started.ts";
import { preflightHeadline } from "../report/preflight-text.ts";
import { runFilesSink } from "../report/write.ts";
import { runSimulated } from "../parsers/simulated.ts";
import type { Plan, PlannedTest, PreflightResult, ResultsFile, Suite, TestResult, UnitResult } from "../core/types.ts";
import { VERSION } from "../core/version.ts";
import { redactionOf } from "../core/redact.ts";
import { sha256 } from "../core/sha256.ts";
import { testPause } from "../core/test-pause.ts";
import { redactSuiteText } from "../load/redact-yaml.ts";
import { KINDS } from "../kinds/mod.ts";
import type { AnyKind } from "../core/kind.ts";
import type { CliOverrides, Platform, PlatformRegistry } from "../core/platform.ts";
import { ensurePrivateDir, writePrivateFile } from "../core/private-fs.ts";
import { FABRIC_COUNTERS_START, type FabricStart, takeFabricStart, takeFabricSweep } from "../execute/fabric-run.ts";

export interface ExecuteOptions {
  outDir: string;
  cli: CliOverrides;
  progress: Progress;
  /** argv as the user typed it, kept in results.json */
  command: string[];
  /** the suite file's text, saved as suite.yaml (a subject of the certificate) */
  suiteText: string;
  /** the merged suite with its origins, saved as suite.resolved.yaml: the directory stands alone */
  resolvedSuite?: string;
  baseline?: ResultsFile;
  baselinePath?: string;
  /** aborted by Ctrl-C/SIGTERM with reason "cancelled" */
  signal: AbortSignal;
  /** --fail-fast: the first failed or errored test ends the run */
  failFast?: boolean;
  /** --rerun-failed: the run whose failed, errored and skipped tests these are */
  rerunOf?: { path: string; sha256: string };
  /** run the preflight and no test */
  preflightOnly?: boolean;
  /** the platform to run on instead of the plan's from the registry (the in-process pipeline test's fake) */
  platform?: Platform<unknown>;
  /** the registry the plan's platform is looked up in (cli/platforms.ts); without it, the one registered */
  platforms?: PlatformRegistry;
  /** a soak's first sweep of the fabric's counters, which every round's fabric test compares with; absent: this run takes its own */
  fabricStart?: FabricStart;
}

export async function executePlan(suite: Suite, plan: Plan, opts: ExecuteOptions): Promise<ResultsFile> {
  const outDir = resolve(opts.outDir);
  const results = openRun(outDir, suite, plan, opts);
  // written ahead: until the run closes, every planned test not yet ended is on disk as unfinished
  // (an error in junit.xml), so a kill at any point leaves files that no reader takes for a pass
  const sink = runFilesSink(outDir);
  const write = (r: ResultsFile) => sink(writtenAhead(r, plan.tests, new Date().toISOString()));
  write(results);
  const env = testEnv(suite, plan, outDir, opts);
  // the fabric's error counters before anything loads it: the fabric test names any that moved since
  if (!opts.signal.aborted && !opts.preflightOnly) {
    const start =
      opts.fabricStart ??
      (await takeFabricStart(
        plan.tests.map((t) => t.spec),
        outDir,
        `since the start of the run (${FABRIC_COUNTERS_START})`,
        opts.signal,
      ));
    if (start) {
      env.fabricStart = start;
      if (!opts.fabricStart) opts.progress.note("error" in start ? `fabric: ${start.error}` : `fabric: error counters at the start of the run written to ${start.path}`);
    }
  }

  // every node is checked against what the tests need before any test spends its time finding out
  let blocked: ((test: string) => string) | undefined;
  // a test read where gpucheck runs (fabric) asks nothing of the nodes: a suite of only those has no preflight
  // nor does a test the platform cannot run (a rack's test on one tray): it is recorded as its error
  const onNodes = plan.tests.filter((t) => !(KINDS[t.kind] as AnyKind).runsHere && !t.notRunnable);
  if (!onNodes.length && opts.preflightOnly) blocked = () => `${PREFLIGHT_ONLY}: no test of the suite runs on the nodes, so there was nothing to check`;
  if (onNodes.length && !opts.signal.aborted) {
    const pre = await preflight({ ...plan, tests: onNodes }, env);
    results.preflight = pre;
    if (!opts.signal.aborted) {
      if (!pre.passed) blocked = (name) => `${opts.preflightOnly ? `${PREFLIGHT_ONLY}: ` : ""}${preflightSkipReason(pre, name)}`;
      else if (opts.preflightOnly) blocked = () => `${PREFLIGHT_ONLY}: preflight passed, no test was run`;
    }
    write(results);
  }

  let stopped: string | undefined;
  for (const [i, test] of plan.tests.entries()) {
    if (opts.signal.aborted || blocked) break;
    opts.progress.testStarted(test.name, i, test.kind, test.perNode === true, expectedUnits(test));
    testPause("test-start");
    // an isolating test's finished rounds are on disk before the next starts: a killed run keeps them
    // the test itself is not over until its last round: a run killed between rounds leaves it unfinished
    const sofar = (partial: TestResult) => write({ ...results, tests: [...results.tests, { ...partial, outcome: "unfinished" }] });
    const { result, records } = await runTest(test, env, opts.baseline, sofar);
    results.tests.push(result);
    // the fabric's counters after each test that loaded it, so a moved counter is placed in its test; in
    // a soak's round (its start is the soak's) the round is named instead, as the counts add up over rounds
    if (!opts.fabricStart && env.fabricStart && !("error" in env.fabricStart) && !test.notRunnable && !opts.signal.aborted) {
      const sweep = await takeFabricSweep(
        plan.tests.map((t) => t.spec),
        test,
        testLogDir(outDir, test.name),
        opts.signal,
      );
      if (sweep && "error" in sweep) opts.progress.note(`fabric: ${sweep.error}`);
      else if (sweep) env.fabricSweeps = [...(env.fabricSweeps ?? []), sweep];
    }
    results.inventory = mergeInventory(results.inventory, records);
    results.outcome = judgeRun(results.tests);
    markSimulated(results);
    write(results);
    opts.progress.testFinished(result);
    if (opts.failFast && (result.outcome === "failed" || result.outcome === "error") && i < plan.tests.length - 1) {
      stopped = `--fail-fast: ${test.name} ${result.outcome === "failed" ? "failed" : "ended in an error"}`;
      opts.progress.note(`${stopped}: skipping the ${plan.tests.length - i - 1} test(s) after it`);
      break;
    }
  }

  // a bundle for each failed or errored node while its state is still the one the test saw
  if (!opts.signal.aborted && suite.evidence?.collect !== false) {
    const evidence = await collectEvidence(results, plan.tests, env, suite.evidence);
    if (evidence.length) results.evidence = evidence;
  }
  closeRun(results, plan.tests, { stopped, blocked, interrupted: opts.signal.aborted, now: new Date().toISOString() });
  write(results);
  return results;
}

/** The nodes a per-node test will report, where the plan knows its hosts (not k8s, not an unnamed Slurm partition). */
function expectedUnits(test: PlannedTest): number | undefined {
  return test.perNode && test.units.every((u) => !u.eachNode) ? test.units.length : undefined;
}

function markSimulated(results: ResultsFile): void {
  const simulated = runSimulated(results);
  if (simulated) results.simulated = simulated;
}

/**
 * The results directory with the suite it runs, and results.json as it stands before any test. The
 * suite's copies have their secret env values as *** (lib/core/redact.ts); results.json then names
 * the copy's sha256 (what a certificate binds) and keeps the file's own as sourceSha256.
 */
function openRun(outDir: string, suite: Suite, plan: Plan, opts: ExecuteOptions): ResultsFile {
  ensurePrivateDir(join(outDir, "logs"));
  const secrets = redactionOf(suite);
  const saved = redactSuiteText(opts.suiteText, secrets);
  writePrivateFile(join(outDir, "suite.yaml"), saved);
  if (opts.resolvedSuite !== undefined) writePrivateFile(join(outDir, RESOLVED_SUITE), redactSuiteText(opts.resolvedSuite, secrets));
  return {
    schemaVersion: 1,
    gpucheck: VERSION,
    suite: saved === opts.suiteText ? plan.suite : { ...plan.suite, sha256: sha256(saved), sourceSha256: plan.suite.sha256 },
    platform: plan.platform,
    command: opts.command,
    startedAt: new Date().toISOString(),
    endedAt: null,
    complete: false,
    outcome: "passed",
    tests: [],
    inventory: [],
    ...(opts.baselinePath ? { baseline: opts.baselinePath } : {}),
    ...(opts.rerunOf ? { rerunOf: opts.rerunOf } : {}),
  };
}

/**
 * One test: execute then assess; an isolating pattern round by round; a ring test with `onFailure:
 * isolate` that failed or hung, isolated after it, its own run standing as the whole set's round.
 */
async function runTest(
  test: PlannedTest,
  env: RunEnv,
  baseline: ResultsFile | undefined,
  sofar: (partial: TestResult) => void,
): Promise<{ result: TestResult; records: RunRecord[] }> {
  const logDir = testLogDir(env.outDir, test.name);
  if (test.notRunnable) {
    // planned as not runnable here: nothing launched, the plan's reason recorded as the test's error
    const records = [notRunnableRecord({ ...test, notRunnable: test.notRunnable }, new Date().toISOString())];
    ensurePrivateDir(logDir);
    saveRecords(logDir, records);
    return { result: assessTest(test, records, baseline), records };
  }
  const onRound = (before: { units: UnitResult[]; records: RunRecord[] }) => (run: IsolationRun) => {
    saveRecords(logDir, [...before.records, ...run.records]);
    sofar(isolatedResult(test, run, before.units));
  };
  if (test.isolation && !test.isolation.onFailure) {
    const run = await runIsolation(test, test.isolation, env, env.render, baseline, undefined, onRound({ units: [], records: [] }));
    saveRecords(logDir, run.records);
    return { result: isolatedResult(test, run), records: run.records };
  }
  const records = await executeTest(test, env);
  const result = assessTest(test, records, baseline);
  const whole = result.units[0];
  if (!test.isolation?.onFailure || env.signal.aborted || !whole || !isolationWanted(whole)) return { result, records };
  env.progress.note(
    `${test.name}: the run over ${test.nodes} nodes ${whole.status === "timeout" ? "hung" : "failed"}: isolating the node(s) behind it by ${test.isolation.pattern}`,
  );
  const run = await runIsolation(test, test.isolation, env, env.render, baseline, { units: result.units, records }, onRound({ units: result.units, records }));
  const all = [...records, ...run.records];
  saveRecords(logDir, all);
  return { result: isolatedResult(test, run, result.units), records: all };
}

interface RunEnv extends TestEnv {
  render: (t: PlannedTest) => unknown;
}

function testEnv(suite: Suite, plan: Plan, outDir: string, opts: ExecuteOptions): RunEnv {
  const { platform, settings } = opts.platform
    ? { platform: opts.platform, settings: opts.platform.settings.parse(suite.platform.settings[opts.platform.name] ?? {}) }
    : resolvePlatform(suite, plan.platform, opts.platforms);
  return {
    suite,
    settings,
    outDir,
    workload: workloadFiles(),
    platformRun: (ctx) => platform.run(ctx),
    ...(platform.perNodeWindow ? { perNodeWindow: platform.perNodeWindow(settings) } : {}),
    render: (t) => platform.render({ suite, settings, cli: opts.cli, test: t, launch: t.launch, workloadHash: workloadHash() }),
    cli: opts.cli,
    progress: opts.progress,
    signal: opts.signal,
  };
}

/** Preflight on every node, with one line of progress per node that failed. */
async function preflight(plan: Plan, env: TestEnv): Promise<PreflightResult> {
  env.progress.note("preflight: checking every node for the interpreter, torch, GPUs, NCCL and tools the tests need");
  // a test planned as not runnable launches nothing: it needs nothing of the nodes
  const tests = plan.tests.filter((t) => !t.notRunnable);
  const pre = await runPreflight(tests, tests.map(needsOf), env);
  env.progress.note(`preflight: ${preflightHeadline(pre)}`);
  for (const n of pre.nodes.filter((n) => !n.passed)) env.progress.note(`preflight failed on ${n.node}: ${n.problems.map((p) => p.message).join("; ")}`);
  return pre;
}
