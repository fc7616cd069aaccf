// `gpucheck soak`'s whole flow: the suite again and again in rounds (each a complete run in
// rounds/NNN/, written as it goes like any run), after each round the soak's index rewritten — per
// test a summary of every round and each part's trend over them — and at the end one certificate
// over the whole soak. Resumable: soak.json says what was asked and which rounds ended, so a soak cut
// short (Ctrl-C, a reboot of the jump host) goes on from the next round and never reruns one.
import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { SuiteError } from "../core/errors.ts";
import { sha256 } from "../core/sha256.ts";
import { writePrivateFileAtomic } from "../core/private-fs.ts";
import type { ResultsFile } from "../core/types.ts";
import { parseDuration } from "../core/units.ts";
import { VERSION } from "../core/version.ts";
import type { PlatformRegistry } from "../core/platform.ts";
import { exitCodeFor } from "../assess/judge.ts";
import { findComponentMetric, findMetric, isKindName } from "../kinds/mod.ts";
import { loadSuite } from "../load/mod.ts";
import { parseResults, RESULT_FILES } from "../report/results.ts";
import { claimRunDir, lockRunDir, utcStamp } from "../report/run-dir.ts";
import { renderSummary } from "../report/summary.ts";
import { writePages, writeRunFiles } from "../report/write.ts";
import { roundSummaries, soakIndex } from "../soak/index-results.ts";
import { appendRound, readSeries, type SeriesStore, writeSeries } from "../soak/series.ts";
import { FABRIC_COUNTERS_START, type FabricStart, takeFabricStart } from "../execute/fabric-run.ts";
import { nextRoundNumber, readSoakState, roundDir, type SoakRound, type SoakState, writeSoakState } from "../soak/state.ts";
import { trendsOf } from "../soak/trend.ts";
import type { Printer } from "./printer.ts";
import { runSuite, type SuiteFlags } from "./suite.ts";

export interface SoakFlags extends SuiteFlags {
  for?: string;
  every?: string;
  rounds?: string;
  maxDrift?: string;
  resume?: string;
}

export interface SoakRequest {
  ref: string | undefined;
  flags: SoakFlags;
  platforms: PlatformRegistry;
  command: string[];
  print: Printer;
  /** aborted on Ctrl-C/SIGTERM: the round running stops as a run does, and the soak with it */
  signal: AbortSignal;
}

const SOAK_LOCK = ".gpucheck-soak.lock";
/** The drift a part may show over a soak unless --max-drift says otherwise: gpucheck's own choice, see docs/soak.md. */
export const DEFAULT_MAX_DRIFT = 0.1;

/** The soak's exit code: as a run's (0, 1, 3); the command makes it 130 when it was interrupted. */
export async function runSoak(request: SoakRequest): Promise<number> {
  const { flags, print } = request;
  const { dir, state } = flags.resume !== undefined ? resumeSoak(request) : await newSoak(request);
  const lock = lockRunDir(dir, SOAK_LOCK);
  try {
    return await soakRounds(dir, state, request);
  } finally {
    lock.release();
    print.out(`soak: ${join(dir, "results.json")}  junit: ${join(dir, "junit.xml")}  report: ${join(dir, "report.html")}\n`);
  }
}

function durationS(flag: string, text: string): number {
  const d = parseDuration(text);
  if (!d.ok) throw new SuiteError(`gpucheck: soak: ${flag}: ${d.reason}`);
  if (d.value < 0) throw new SuiteError(`gpucheck: soak: ${flag}: must not be negative, got "${text}"`);
  return d.value / 1000;
}

export function parseDrift(text: string): number {
  const m = /^\s*([0-9]*\.?[0-9]+)\s*(%?)\s*$/.exec(text);
  const v = m ? Number(m[1]) / (m[2] ? 100 : 1) : NaN;
  if (!(v > 0 && v < 1)) throw new SuiteError(`gpucheck: soak: --max-drift: give a fraction or a percentage between 0 and 100 %, e.g. 10% or 0.1; got "${text}"`);
  return v;
}

/** How many rounds, how far apart: --rounds, or --for over --every (or --for split in --rounds). */
function schedule(flags: SoakFlags): { rounds: number; everyS: number; forS: number | null } {
  const forS = flags.for === undefined ? null : durationS("--for", flags.for);
  const everyS = flags.every === undefined ? null : durationS("--every", flags.every);
  let rounds: number | null = null;
  if (flags.rounds !== undefined) {
    rounds = Number(flags.rounds);
    if (!Number.isInteger(rounds) || rounds < 1) throw new SuiteError(`gpucheck: soak: --rounds: give a whole number of rounds ≥ 1, got "${flags.rounds}"`);
  }
  if (rounds !== null) return { rounds, everyS: everyS ?? (forS !== null ? forS / rounds : 0), forS };
  if (forS === null) throw new SuiteError("gpucheck: soak: say how long: --for <duration> (with --every <duration>, default 1h) or --rounds <n>");
  const every = everyS ?? 3600;
  if (every <= 0) throw new SuiteError("gpucheck: soak: --every must be positive with --for (or give --rounds)");
  const n = Math.floor(forS / every);
  if (n < 1) throw new SuiteError(`gpucheck: soak: --for ${flags.for} is shorter than one round every ${flags.every ?? "1h"}: make --for longer or --every shorter`);
  return { rounds: n, everyS: every, forS };
}

/** The flags every round runs with: the soak's own and those that are per round are left out. */
function roundFlags(flags: SoakFlags): Record<string, string | boolean | undefined> {
  const { for: _f, every: _e, rounds: _r, maxDrift: _m, resume: _s, out: _o, signKey: _k, force: _c, progress: _p, rerunFailed: _x, preflightOnly: _y, ...rest } = flags;
  return rest as Record<string, string | boolean | undefined>;
}

async function newSoak(request: SoakRequest): Promise<{ dir: string; state: SoakState }> {
  const { ref, flags, platforms } = request;
  if (ref === undefined) throw new SuiteError("gpucheck: soak: name the suite to soak (a file or a built-in name, see `gpucheck list`), or --resume <soak-dir>");
  const plan = schedule(flags);
  const maxDrift = flags.maxDrift === undefined ? DEFAULT_MAX_DRIFT : parseDrift(flags.maxDrift);
  // a suite file by its absolute path: a resume from another directory runs the same file
  const suiteRef = existsSync(ref) ? resolve(ref) : ref;
  // a suite that does not load is refused before any directory is made
  const suite = await loadSuite(suiteRef, { platforms });
  if (flags.signKey) {
    const { checkSigningKey } = await import("../sign/keys.ts");
    checkSigningKey(flags.signKey);
  }
  const dir = flags.out ?? join("gpucheck-results", `soak-${suite.name}-${utcStamp(new Date())}`);
  // a new soak takes a directory of its own, private, as a run does
  claimRunDir(dir, { force: flags.force, groupReadable: flags.groupReadable }).release();
  const state: SoakState = {
    version: 1,
    suite: suiteRef,
    flags: roundFlags(flags),
    rounds: plan.rounds,
    everyS: plan.everyS,
    forS: plan.forS,
    maxDrift,
    startedAt: new Date().toISOString(),
    command: request.command,
    history: [],
  };
  writeSoakState(dir, state);
  return { dir, state };
}

function resumeSoak(request: SoakRequest): { dir: string; state: SoakState } {
  const dir = request.flags.resume!;
  const state = readSoakState(dir);
  if (request.ref !== undefined && (existsSync(request.ref) ? resolve(request.ref) : request.ref) !== state.suite)
    throw new SuiteError(`gpucheck: soak --resume ${dir}: that soak runs ${state.suite}, not ${request.ref}: drop the suite argument to resume it`);
  // a round the soak recorded as started but never ended was cut short with the soak: kept, not counted
  for (const r of state.history) if (r.endedAt === null && r.outcome === "unfinished") r.outcome = "interrupted";
  return { dir, state };
}

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((done) => {
    if (ms <= 0 || signal.aborted) return done();
    const t = setTimeout(done, ms);
    signal.addEventListener("abort", () => (clearTimeout(t), done()), { once: true });
  });

async function soakRounds(dir: string, state: SoakState, request: SoakRequest): Promise<number> {
  const { flags, print, signal } = request;
  const completed = () => state.history.filter((r) => r.complete).length;
  const series = readSeries(dir);
  const fabric = await soakFabricStart(dir, state, request);
  while (completed() < state.rounds && !signal.aborted) {
    const last = state.history.at(-1);
    if (last && state.everyS > 0) await sleep(Date.parse(last.startedAt) + state.everyS * 1000 - Date.now(), signal);
    if (signal.aborted) break;
    const n = nextRoundNumber(dir, state);
    const round: SoakRound = { round: n, dir: roundDir(n), startedAt: new Date().toISOString(), endedAt: null, outcome: "unfinished", complete: false, resultsSha256: null };
    state.history.push(round);
    writeSoakState(dir, state);
    print.err(`gpucheck: soak: round ${n} (${completed() + 1} of ${state.rounds}) into ${join(dir, round.dir)}\n`);
    await runSuite({
      ref: state.suite,
      flags: { ...(state.flags as Partial<SuiteFlags>), out: join(dir, round.dir), progress: flags.progress },
      platforms: request.platforms,
      command: request.command,
      print,
      signal,
      // the soak command holds Ctrl-C for the whole soak
      interruptible: () => () => {},
      ...(fabric && { fabricStart: "error" in fabric ? fabric : { ...fabric, at: `${fabric.at}, seen in round ${n}` } }),
    });
    const read = readRound(dir, round);
    round.endedAt = new Date().toISOString();
    round.resultsSha256 = read.sha;
    round.complete = !signal.aborted && read.results !== null && read.results.complete && read.results.endedAt !== null;
    round.outcome = round.complete ? read.results!.outcome : "interrupted";
    // the round's results are read this once: its summary goes into soak.json, its figures into series.json
    round.tests = roundSummaries(round, read.results);
    if (read.results) {
      state.suiteInfo ??= read.results.suite;
      state.platform ??= read.results.platform;
      if (read.results.inventory.length) state.inventory = read.results.inventory;
    }
    if (round.complete && read.results) {
      appendRound(series, round.round, read.results);
      writeSeries(dir, series);
    }
    writeSoakState(dir, state);
    writeIndex(dir, state, series, false);
  }
  const done = completed() >= state.rounds;
  const index = writeIndex(dir, state, series, done);
  print.out(renderSummary(index, { color: print.color }) + "\n");
  if (done && flags.signKey) {
    const { certifyResults } = await import("../sign/certify.ts");
    print.out(`signed: ${await certifyResults(dir, flags.signKey)}\n`);
  } else if (flags.signKey)
    print.err(`gpucheck: soak: not signed: ${completed()} of ${state.rounds} rounds complete (resume it: gpucheck soak --resume ${dir} --sign-key ${flags.signKey})\n`);
  return exitCodeFor(index.outcome);
}

/**
 * A suite with a fabric test: the fabric's error counters before the soak's first round, in the soak's
 * directory, which every round's fabric test compares with, so the counts add up over the rounds. A
 * resumed soak keeps the sweep it took when it began.
 */
async function soakFabricStart(dir: string, state: SoakState, request: SoakRequest): Promise<FabricStart | undefined> {
  const at = `since the soak began (${FABRIC_COUNTERS_START} of ${dir})`;
  const path = join(dir, FABRIC_COUNTERS_START);
  if (existsSync(path)) return { path, at };
  const suite = await loadSuite(state.suite, { platforms: request.platforms });
  const start = await takeFabricStart(suite.tests, dir, at, request.signal);
  if (start) request.print.err(`gpucheck: soak: ${"error" in start ? `fabric: ${start.error}` : `the fabric's error counters before round 1 written to ${path}`}\n`);
  return start;
}

function readRound(dir: string, round: SoakRound): { results: ResultsFile | null; sha: string | null } {
  const path = join(dir, round.dir, RESULT_FILES.results);
  if (!existsSync(path)) return { results: null, sha: null };
  const bytes = readFileSync(path);
  try {
    return { results: parseResults(bytes.toString("utf8"), path), sha: sha256(bytes) };
  } catch {
    // a round killed in the middle of its write: its results do not count
    return { results: null, sha: sha256(bytes) };
  }
}

const metricInfo = (kind: string, metric: string) => (isKindName(kind) ? (findComponentMetric(kind, metric) ?? findMetric(kind, metric)) : undefined);

/** results.json, junit.xml and the pages of the soak, from soak.json and series.json (never the rounds' results). */
function writeIndex(dir: string, state: SoakState, series: SeriesStore, ended: boolean): ResultsFile {
  const trends = trendsOf(series, { maxDrift: state.maxDrift, metricInfo });
  const index = soakIndex(state, trends, { ended, endedAt: ended ? new Date().toISOString() : null, version: VERSION });
  // the certificate covers suite.yaml beside results.json: the rounds' own copy, byte for byte
  const firstWithSuite = state.history.find((r) => r.complete && existsSync(join(dir, r.dir, "suite.yaml")));
  if (firstWithSuite && !existsSync(join(dir, "suite.yaml"))) writePrivateFileAtomic(join(dir, "suite.yaml"), readFileSync(join(dir, firstWithSuite.dir, "suite.yaml")));
  writeRunFiles(dir, index);
  writePages(dir, index);
  return index;
}
