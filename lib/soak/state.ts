// soak.json: what a soak was asked to do and where it stands, rewritten after every round, so that
// `gpucheck soak --resume <dir>` (after Ctrl-C, or the jump host's reboot) goes on from the next round
// with the same suite, length and drift, and never runs again a round already finished.
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { SuiteError } from "../core/errors.ts";
import { withFs } from "../core/fs-error.ts";
import { writePrivateFileAtomic } from "../core/private-fs.ts";
import type { NodeInventory, ResultsFile, TestResult, UnitResult } from "../core/types.ts";

export const SOAK_FILE = "soak.json";
export const ROUNDS_DIR = "rounds";

export interface SoakRound {
  round: number;
  /** relative to the soak's directory: rounds/003 */
  dir: string;
  startedAt: string;
  endedAt: string | null;
  /** the round's run outcome; "interrupted" for a round that never ended (its finished tests are kept in its directory) */
  outcome: "passed" | "failed" | "error" | "skipped" | "unfinished" | "interrupted";
  complete: boolean;
  /** sha256 of the round's results.json as the soak read it: the soak's certificate covers the rounds through it */
  resultsSha256: string | null;
  /** each test of the round summed up as it ended (lib/soak/index-results.ts roundSummary): the index is made from these */
  tests?: RoundTestSummary[];
}

/** One test of one round, as the soak's index lists it: the test's identity and the round's one summary unit. */
export interface RoundTestSummary {
  name: string;
  kind: TestResult["kind"];
  nodes: number;
  gpusPerNode: number;
  worldSize: number;
  expect: TestResult["expect"];
  headline: TestResult["headline"];
  unit: UnitResult;
}

export interface SoakState {
  version: 1;
  /** the suite as given (a file, resolved to an absolute path, or a built-in name) */
  suite: string;
  /** the suite flags the rounds run with, as given: platform, hosts, python … */
  flags: Record<string, string | boolean | undefined>;
  /** complete rounds wanted: --rounds, or --for ÷ --every */
  rounds: number;
  /** seconds from one round's start to the next's (0: back to back) */
  everyS: number;
  forS: number | null;
  maxDrift: number;
  startedAt: string;
  command: string[];
  history: SoakRound[];
  /** the nodes' inventory as the last round that read one found it */
  inventory?: NodeInventory[];
  /** the suite as the first round saved it (name, description, path, sha256) and its platform */
  suiteInfo?: ResultsFile["suite"];
  platform?: string;
}

export const roundDir = (n: number) => join(ROUNDS_DIR, String(n).padStart(3, "0"));

export function writeSoakState(dir: string, state: SoakState): void {
  writePrivateFileAtomic(join(dir, SOAK_FILE), `${JSON.stringify(state, null, 2)}\n`);
}

/** The soak in dir, for --resume: refused in one line when dir holds no soak or its soak.json is not one. */
export function readSoakState(dir: string): SoakState {
  const path = join(dir, SOAK_FILE);
  if (!existsSync(path)) throw new SuiteError(`gpucheck: soak --resume ${dir}: no ${SOAK_FILE} there: not a soak's directory; give the directory a soak wrote (its --out)`);
  const text = withFs({ doing: "read the soak to resume", path, option: "--resume", mode: "read" }, () => readFileSync(path, "utf8"));
  let state: SoakState;
  try {
    state = JSON.parse(text) as SoakState;
  } catch (e) {
    throw new SuiteError(`gpucheck: soak --resume ${dir}: ${path} is not JSON (${(e as Error).message}): it was not written by gpucheck soak, or was cut short; start a new soak`);
  }
  if (state?.version !== 1 || typeof state.suite !== "string" || !Array.isArray(state.history) || !(state.rounds > 0))
    throw new SuiteError(`gpucheck: soak --resume ${dir}: ${path} is not a soak this gpucheck knows (version ${String(state?.version)}): start a new soak`);
  return state;
}

/** Round directories a killed soak made but never recorded (it died mid-round): the next free round number. */
export function nextRoundNumber(dir: string, state: SoakState): number {
  const recorded = state.history.map((r) => r.round);
  const onDisk = existsSync(join(dir, ROUNDS_DIR))
    ? readdirSync(join(dir, ROUNDS_DIR))
        .filter((f) => /^\d{3,}$/.test(f))
        .map(Number)
    : [];
  return Math.max(0, ...recorded, ...onDisk) + 1;
}
