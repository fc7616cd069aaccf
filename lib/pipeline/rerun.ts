// `gpucheck suite --rerun-failed <dir>`: the tests of an earlier run that did not pass (failed,
// errored, or never started), run again into a new directory that names the run it reran.
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { SuiteError } from "../core/errors.ts";
import { readResults } from "../report/results.ts";
import type { Suite } from "../core/types.ts";

export interface Rerun {
  /** the earlier run's directory */
  dir: string;
  /** sha256 of its results.json, recorded as rerunOf */
  sha256: string;
  /** the platform it ran on: the rerun's default */
  platform: string;
  /** the tests to run again; empty when every test passed */
  tests: string[];
  /** the tests results.json lists: a run killed outright (no endedAt) never listed those it did not reach */
  recorded: string[];
  ended: boolean;
}

export function readRerun(dir: string, flags: { only?: string }): Rerun {
  if (flags.only !== undefined) throw new SuiteError("gpucheck: --only and --rerun-failed both choose the tests to run: pass one of them");
  let read;
  try {
    read = readResults(dir);
  } catch (e) {
    if (e instanceof SuiteError) throw new SuiteError(`gpucheck: --rerun-failed: ${e.message}`);
    throw e;
  }
  const tests = read.results.tests.filter((t) => t.outcome !== "passed").map((t) => t.name);
  return {
    dir: read.dir,
    sha256: createHash("sha256").update(readFileSync(read.path)).digest("hex"),
    platform: read.results.platform,
    tests,
    recorded: read.results.tests.map((t) => t.name),
    ended: read.results.endedAt !== null,
  };
}

/** A killed run's suite tests it never reached count as not passed: they are rerun too. */
export function withUnreached(rerun: Rerun, suite: Suite): Rerun {
  if (rerun.ended) return rerun;
  const seen = new Set(rerun.recorded);
  return { ...rerun, tests: [...rerun.tests, ...suite.tests.map((t) => t.name).filter((n) => !seen.has(n))] };
}

/** The suite given instead of the run's own must still have the tests being rerun. */
export function checkRerunTests(rerun: Rerun, suite: Suite): void {
  const names = new Set(suite.tests.map((t) => t.name));
  const missing = rerun.tests.filter((n) => !names.has(n));
  if (missing.length) {
    throw new SuiteError(
      `gpucheck: --rerun-failed: suite ${suite.source.path} has no test ${missing.map((n) => `"${n}"`).join(", ")} of ${rerun.dir}: rerun with that run's own suite (leave the suite argument out)`,
    );
  }
}
