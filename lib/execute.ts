// The one impure step: run a Plan through its platform, test by test, writing results as each
// test finishes so that a later crash, timeout or Ctrl-C still leaves every finished test on disk.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { workloadFiles, workloadHash } from "./assets.ts";
import { PlatformError } from "./errors.ts";
import { headlineOf, judgeTest, judgeUnit } from "./judge.ts";
import { baselineMeasurement } from "./judge-results.ts";
import { measure } from "./measure.ts";
import { addFleetConfigFindings, collectInventories } from "./parsers/inventory.ts";
import { summariseTelemetry } from "./parsers/telemetry.ts";
import type { Progress } from "./progress.ts";
import { RESOLVED_SUITE } from "./load/read.ts";
import { NOT_STARTED, PREFLIGHT_ONLY } from "./report/not-started.ts";
import { needsOf } from "./preflight/needs.ts";
import { preflightSkipReason, runPreflight } from "./preflight/run.ts";
import { preflightHeadline } from "./report/preflight-text.ts";
import { writeRunFiles } from "./report/write.ts";
import type { Measurement, NodeInventory, Plan, PlannedTest, PreflightResult, ResultsFile, Suite, TestResult, UnitResult, UnitRun } from "./types.ts";
import { VERSION } from "./version.ts";
import { resolvePlatform } from "./plan.ts";
import type { CliOverrides, RunContext } from "../plugins/types.ts";

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
}

export async function executePlan(suite: Suite, plan: Plan, opts: ExecuteOptions): Promise<ResultsFile> {
  const outDir = resolve(opts.outDir);
  mkdirSync(join(outDir, "logs"), { recursive: true });
  writeFileSync(join(outDir, "suite.yaml"), opts.suiteText);
  if (opts.resolvedSuite !== undefined) writeFileSync(join(outDir, RESOLVED_SUITE), opts.resolvedSuite);
  const { platform, settings } = resolvePlatform(suite, plan.platform);
  const workload = workloadFiles();
  const results: ResultsFile = {
    schemaVersion: 1,
    gpucheck: VERSION,
    suite: plan.suite,
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
  writeRunFiles(outDir, results);
  let stopped: string | undefined;
  const env: TestEnv = {
    suite,
    settings,
    outDir,
    workload,
    platformRun: (ctx) => platform.run(ctx),
    cli: opts.cli,
    progress: opts.progress,
    signal: opts.signal,
  };

  // every node is checked against what the tests need before any test spends its time finding out
  let blocked: ((test: string) => string) | undefined;
  if (plan.tests.length && !opts.signal.aborted) {
    const pre = await preflight(plan, env);
    results.preflight = pre;
    if (!opts.signal.aborted) {
      if (!pre.passed) blocked = (name) => `${opts.preflightOnly ? `${PREFLIGHT_ONLY}: ` : ""}${preflightSkipReason(pre, name)}`;
      else if (opts.preflightOnly) blocked = () => `${PREFLIGHT_ONLY}: preflight passed, no test was run`;
    }
    writeRunFiles(outDir, results);
  }

  for (const [i, test] of plan.tests.entries()) {
    if (opts.signal.aborted || blocked) break;
    opts.progress.testStarted(test.name, i, test.kind, test.perNode === true);
    const units = await runTest(test, env);
    const result = judgeUnits(test, units, outDir, opts.baseline);
    results.tests.push(result);
    results.inventory = mergeInventory(results.inventory, units.flatMap((u) => u.inventory));
    results.outcome = judgeTest(results.tests.flatMap((t) => t.units));
    writeRunFiles(outDir, results);
    opts.progress.testFinished(result);
    if (opts.failFast && (result.outcome === "failed" || result.outcome === "error") && i < plan.tests.length - 1) {
      stopped = `--fail-fast: ${test.name} ${result.outcome === "failed" ? "failed" : "ended in an error"}`;
      opts.progress.note(`${stopped}: skipping the ${plan.tests.length - i - 1} test(s) after it`);
      break;
    }
  }
  // a test that never started is still accounted for: skipped, with why, in every output
  const ran = results.tests.length;
  let notStarted = stopped ? `${NOT_STARTED}: ${stopped}` : NOT_STARTED;
  if (ran < plan.tests.length && opts.signal.aborted) {
    stopped = "interrupted by Ctrl-C or SIGTERM";
    notStarted = `${NOT_STARTED}: the run was interrupted (Ctrl-C or SIGTERM)`;
  }
  for (const test of plan.tests.slice(ran)) results.tests.push(skippedTest(test, !opts.signal.aborted && blocked ? blocked(test.name) : notStarted));
  if (stopped) results.stopped = stopped;
  // a run where no test ran (--preflight-only, Ctrl-C during preflight) did not pass: nothing was judged
  results.outcome = judgeTest(results.tests.flatMap((t) => t.units));
  // a failed preflight is the run's verdict: nothing was measured
  if (blocked && !results.preflight?.passed) results.outcome = "error";
  results.endedAt = new Date().toISOString();
  // a run that stopped at preflight did all it meant to: complete, with the tests skipped and why
  results.complete = !opts.signal.aborted && (ran === plan.tests.length || blocked !== undefined);
  if (!results.complete && (results.outcome === "passed" || results.outcome === "skipped")) results.outcome = "error";
  writeRunFiles(outDir, results);
  return results;
}

/** Preflight on every node, with one line of progress per node that failed. */
async function preflight(plan: Plan, env: TestEnv): Promise<PreflightResult> {
  env.progress.note("preflight: checking every node for the interpreter, torch, GPUs, NCCL and tools the tests need");
  const pre = await runPreflight(plan.tests, plan.tests.map(needsOf), env);
  env.progress.note(`preflight: ${preflightHeadline(pre)}`);
  for (const n of pre.nodes.filter((n) => !n.passed)) env.progress.note(`preflight failed on ${n.node}: ${n.problems.map((p) => p.message).join("; ")}`);
  return pre;
}

export interface TestEnv {
  suite: Suite;
  settings: unknown;
  outDir: string;
  workload: ReadonlyMap<string, string>;
  platformRun: (ctx: RunContext<unknown>) => Promise<UnitRun[]>;
  cli: CliOverrides;
  progress: Progress;
  signal: AbortSignal;
}

export type RunWithData = UnitRun & { texts: string[]; inventory: NodeInventory[] };

/** One test through its platform, bounded by its timeout; its rank logs go to logDir (default logs/<test>/). */
export async function runTest(test: PlannedTest, env: TestEnv, logDir = join(env.outDir, "logs", safeName(test.name))): Promise<RunWithData[]> {
  mkdirSync(logDir, { recursive: true });
  const timeout = new AbortController();
  const timer = setTimeout(() => timeout.abort("timeout"), test.timeoutMs);
  // a Ctrl-C reads as "cancelled", the timer as "timeout": platforms report which
  const signal = AbortSignal.any([env.signal, timeout.signal]);
  const startedAt = new Date().toISOString();
  const alive = new Set<string>();
  let units: UnitRun[];
  try {
    units = await env.platformRun({
      suite: env.suite,
      settings: env.settings,
      cli: env.cli,
      test,
      launch: test.launch,
      workloadHash: workloadHash(env.workload),
      outDir: env.outDir,
      logDir,
      workload: env.workload,
      signal,
      deadline: Date.now() + test.timeoutMs,
      onLine: (unit, rank, line) => {
        const key = `${unit}/${rank}`;
        if (!alive.has(key)) {
          alive.add(key);
          env.progress.ranksReporting(alive.size);
        }
        env.progress.line(unit, rank, line);
      },
      note: (m) => env.progress.note(m),
    });
  } catch (err) {
    // a platform that cannot even start the test still yields a verdict: error, with the reason
    const message = err instanceof PlatformError ? err.message : `internal error: ${(err as Error)?.stack ?? String(err)}`;
    units = [
      { unit: "all", hosts: [], status: signal.aborted ? statusOf(signal) : "infra", message, startedAt, endedAt: new Date().toISOString(), ranks: [], output: "", tail: "" },
    ];
  } finally {
    clearTimeout(timer);
  }
  return units.map((u) => {
    const texts = u.ranks.map((r) => (existsSync(r.path) ? readFileSync(r.path, "utf8") : ""));
    return { ...u, texts, inventory: collectInventories(texts) };
  });
}

function statusOf(signal: AbortSignal): "timeout" | "cancelled" {
  return signal.reason === "timeout" ? "timeout" : "cancelled";
}

function judgeUnits(test: PlannedTest, units: RunWithData[], outDir: string, baseline?: ResultsFile): TestResult {
  const measured = units.map((u) => {
    const telemetry = summariseTelemetry(u.texts);
    let measurement: Measurement | null = null;
    let parseProblem: string | undefined;
    if (u.status !== "skipped" && u.status !== "infra") {
      try {
        measurement = measure(test.kind, u.output, telemetry, u.texts, test.spec.inventory);
      } catch (err) {
        parseProblem = (err as Error).message;
      }
    }
    return { u, telemetry, measurement, parseProblem };
  });
  // a node is only "consistent" next to the others: compare them once all have reported
  if (test.kind === "inventory") addFleetConfigFindings(measured.map((x) => x.measurement), test.spec.inventory);
  const unitResults: UnitResult[] = measured.map(({ u, telemetry, measurement, parseProblem }) => {
    const message = [u.message, u.status === "completed" ? parseProblem : undefined].filter(Boolean).join("; ") || undefined;
    const verdict = judgeUnit(test.expect, { status: u.status, message, measurement }, baselineMeasurement(baseline, test.name, u.unit));
    return {
      unit: u.unit,
      hosts: u.hosts,
      status: u.status,
      ...(message ? { message } : {}),
      startedAt: u.startedAt,
      endedAt: u.endedAt,
      durationS: (Date.parse(u.endedAt) - Date.parse(u.startedAt)) / 1000,
      measurement,
      verdict,
      logs: u.ranks.map((r) => r.path.startsWith(outDir) ? r.path.slice(outDir.length + 1) : r.path),
      tail: u.tail,
      telemetry,
    };
  });
  return testResult(test, unitResults, judgeTest(unitResults));
}

/** A test's result around its units: what was planned, how it was launched, and the verdict. */
function testResult(test: PlannedTest, units: UnitResult[], outcome: TestResult["outcome"]): TestResult {
  return {
    name: test.name,
    kind: test.kind,
    perNode: test.perNode,
    nodes: test.nodes,
    gpusPerNode: test.gpusPerNode,
    worldSize: test.worldSize,
    launch: launchOf(test),
    expect: test.expect,
    headline: headlineOf(test.kind, test.expect),
    units,
    outcome,
  };
}

/** What each rank ran and with which environment: enough to rerun one test by hand. */
function launchOf(test: PlannedTest): { command: string[]; env: Record<string, string> } {
  return { command: [test.launch.python, ...test.launch.args], env: test.launch.env };
}

function skippedTest(test: PlannedTest, reason: string): TestResult {
  const now = new Date().toISOString();
  const unit: UnitResult = {
    unit: "all",
    hosts: [],
    status: "skipped",
    message: reason,
    startedAt: now,
    endedAt: now,
    durationS: 0,
    measurement: null,
    verdict: { outcome: "skipped", reason, checks: [] },
    logs: [],
    tail: "",
  };
  return testResult(test, [unit], "skipped");
}

function mergeInventory(have: NodeInventory[], found: NodeInventory[]): NodeInventory[] {
  const byHost = new Map(have.map((i) => [i.hostname, i]));
  for (const inv of found) byHost.set(inv.hostname, inv);
  return [...byHost.values()];
}

/** Test names become directory names under logs/. */
export function safeName(name: string): string {
  return name.replace(/[^A-Za-z0-9._-]+/g, "_");
}
