// The execute stage: one planned test through its platform, bounded by its timeout and by Ctrl-C,
// and what it left behind as run records. Nothing here parses or judges (that is lib/assess).
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { workloadHash } from "../core/assets.ts";
import { isErrnoError, uncaughtFsLine } from "../core/fs-error.ts";
import { PlatformError } from "../core/errors.ts";
import type { Progress } from "../core/progress.ts";
import type { PlannedTest, Suite, UnitRun } from "../core/types.ts";
import type { CliOverrides, RunContext } from "../core/platform.ts";
import { RUN_RECORDS_FILE, savedRecord, type RunRecord } from "./record.ts";
import { stopReason } from "../core/stop.ts";
import { redactionOf, scrubText } from "../core/redact.ts";
import { ensurePrivateDir, writePrivateFile } from "../core/private-fs.ts";
import { type FabricStart, type FabricSweep, runFabricUnit } from "./fabric-run.ts";

export interface TestEnv {
  suite: Suite;
  settings: unknown;
  outDir: string;
  workload: ReadonlyMap<string, string>;
  platformRun: (ctx: RunContext<unknown>) => Promise<UnitRun[]>;
  /** the platform's Platform.perNodeWindow for this run's settings, when its per-node units take turns */
  perNodeWindow?: number;
  cli: CliOverrides;
  progress: Progress;
  signal: AbortSignal;
  /** the run's first sweep of the fabric's counters, when its suite holds a fabric test (./fabric-run.ts) */
  fabricStart?: FabricStart;
  /** the sweeps taken after each test so far (./fabric-run.ts takeFabricSweep), in order */
  fabricSweeps?: FabricSweep[];
}

/** Test names become directory names under logs/. */
export function safeName(name: string): string {
  return name.replace(/[^A-Za-z0-9._-]+/g, "_");
}

/** A test's rank logs and records: logs/<test>/. */
export function testLogDir(outDir: string, test: string): string {
  return join(outDir, "logs", safeName(test));
}

/** Runs a test and saves its records beside its rank logs, for `gpucheck judge` to parse again. */
export async function executeTest(test: PlannedTest, env: TestEnv): Promise<RunRecord[]> {
  const logDir = testLogDir(env.outDir, test.name);
  const records = await runUnits(test, env, logDir);
  saveRecords(logDir, records);
  return records;
}

/** The records `gpucheck judge` parses again: every unit of the test, every round of an isolating one. */
export function saveRecords(logDir: string, records: RunRecord[]): void {
  writePrivateFile(join(logDir, RUN_RECORDS_FILE), `${JSON.stringify(records.map(savedRecord), null, 2)}\n`);
}

/** One test through its platform; its rank logs go to logDir. */
export async function runUnits(test: PlannedTest, env: TestEnv, logDir: string): Promise<RunRecord[]> {
  ensurePrivateDir(logDir);
  const timeout = new AbortController();
  const t0 = Date.now();
  const budgetFor = (units: number) => test.timeoutMs * turnsOf(test, units, env.perNodeWindow);
  let timer = setTimeout(() => timeout.abort("timeout"), budgetFor(test.units?.length ?? 0));
  // a Ctrl-C reads as "cancelled", the timer as "timeout": platforms report which
  const signal = AbortSignal.any([env.signal, timeout.signal]);
  const startedAt = new Date().toISOString();
  const alive = new Set<string>();
  // gpucheck's own words (a platform's message, a note) never carry a secret env value (lib/core/redact.ts)
  const secrets = redactionOf(env.suite);
  const ctx: RunContext<unknown> = {
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
    deadline: t0 + budgetFor(test.units?.length ?? 0),
    perNodeUnits: (count) => {
      const later = t0 + budgetFor(count);
      if (later <= ctx.deadline || signal.aborted) return;
      ctx.deadline = later;
      clearTimeout(timer);
      timer = setTimeout(() => timeout.abort("timeout"), later - Date.now());
    },
    onLine: (unit, rank, line) => {
      const key = `${unit}/${rank}`;
      if (!alive.has(key)) {
        alive.add(key);
        env.progress.ranksReporting(alive.size);
      }
      env.progress.line(unit, rank, line);
    },
    note: (m) => env.progress.note(scrubText(m, secrets)),
    unitStarted: (unit) => env.progress.unitStarted(unit),
    unitEnded: (run) => env.progress.unitEnded(run),
  };
  let units: UnitRun[];
  try {
    // a fabric test runs no rank: its reading is taken here, where gpucheck runs
    units = test.kind === "fabric" ? [await runFabricUnit(test, env.fabricStart, logDir, env.fabricSweeps, signal)] : await env.platformRun(ctx);
  } catch (err) {
    // a platform that cannot even start the test still yields a verdict: error, with the reason
    // a full or read-only disk is the machine's state, said in one line; only a bug gets a stack
    const message = err instanceof PlatformError ? err.message : isErrnoError(err) ? uncaughtFsLine(err) : `internal error: ${(err as Error)?.stack ?? String(err)}`;
    units = [
      { unit: "all", hosts: [], status: signal.aborted ? stopReason(signal) : "infra", message, startedAt, endedAt: new Date().toISOString(), ranks: [], output: "", tail: "" },
    ];
  } finally {
    clearTimeout(timer);
  }
  // the units a platform did not stream as they ended (or all, where it does not) are counted now
  for (const u of units) env.progress.unitEnded(u);
  return units.map((u) => recordOf(u.message === undefined ? u : { ...u, message: scrubText(u.message, secrets) }, env.outDir));
}

/** How many times over a per-node test's n nodes take their turns: 1,000 hosts, 64 at a time, are 16 turns of one timeout each. */
function turnsOf(test: PlannedTest, n: number, window: number | undefined): number {
  return test.perNode && window && n > window ? Math.ceil(n / window) : 1;
}

function recordOf(u: UnitRun, outDir: string): RunRecord {
  const texts = u.ranks.map((r) => (existsSync(r.path) ? readFileSync(r.path, "utf8") : ""));
  return {
    unit: u.unit,
    hosts: u.hosts,
    status: u.status,
    ...(u.message !== undefined ? { message: u.message } : {}),
    startedAt: u.startedAt,
    endedAt: u.endedAt,
    ranks: u.ranks.map((r) => ({ rank: r.rank, host: r.host, log: r.path.startsWith(outDir) ? r.path.slice(outDir.length + 1) : r.path, exitCode: r.exitCode })),
    // one string where the platform's output is its log file's text, as it mostly is: a fleet's
    // records held every rank-0 log twice until the run's end
    output: u.output === texts[0] ? texts[0] : u.output,
    tail: u.tail,
    ...(u.lost ? { lost: u.lost } : {}),
    texts,
  };
}
