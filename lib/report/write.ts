// The files of a results directory. results.json and junit.xml are rewritten after every test, so a
// crash, a timeout of the whole job or Ctrl-C still leaves every finished test for Jenkins; the
// page and the summary come at the end (and from `gpucheck report`).
import { join } from "node:path";
import type { ResultsFile, TestResult } from "../core/types.ts";
import { renderHtml } from "./html.ts";
import { renderJunit } from "./junit.ts";
import { writeEcosystemFiles } from "./ecosystem.ts";
import { RESULT_FILES, serialiseResults, writeFileAtomic } from "./results.ts";
import { ensurePrivateDir, writePrivateFileAtomic } from "../core/private-fs.ts";
import { FLEET_UNITS, isFleet } from "./fleet.ts";
import { renderSummary } from "./summary.ts";

/** Where the pipeline puts results.json and junit.xml after every test. */
export type Sink = (results: ResultsFile) => void;

export function runFilesSink(outDir: string): Sink {
  // a finished test's telemetry does not change: each series file is written once per run
  const written = new Set<string>();
  return (results) => writeRunFiles(outDir, results, written);
}

/** `written`: the series files already written by this run (runFilesSink keeps it between tests). */
export function writeRunFiles(outDir: string, results: ResultsFile, written: Set<string> = new Set()): void {
  ensurePrivateDir(outDir);
  // the test just run left its own garbage (its units' output as it streamed in)
  collectAfterFleetWrite(results);
  writeFileAtomic(join(outDir, RESULT_FILES.results), serialiseResults(seriesToFiles(outDir, results, written)));
  collectAfterFleetWrite(results);
  // junit.xml's garbage goes with the next write's first collection
  writeFileAtomic(join(outDir, RESULT_FILES.junit), renderJunit(results));
  writeEcosystemFiles(outDir, results);
}

/**
 * Building a fleet's results.json leaves tens of MB of intermediate strings, which JSC collected so
 * late that a run's peak RSS was mostly old copies of its own outputs: at 300 nodes each rewrite of
 * results.json kept ~60 MiB and of junit.xml ~17 MiB, and a 1,000-node run peaked at 1,182 MiB
 * (BENCHMARKS.md "A thousand simulated nodes"). A full collection costs ~10-50 ms there, against a
 * write of several hundred.
 */
function collectAfterFleetWrite(results: ResultsFile): void {
  if (isFleet(results) || (results.preflight?.nodes.length ?? 0) > FLEET_UNITS) Bun.gc(true);
}

/**
 * A test of more than FLEET_UNITS units keeps each unit's telemetry series in a file of its own
 * (telemetry/<test>/<unit>.json, named by the unit's telemetry.seriesFile), not in results.json: at
 * 1,000 nodes the series were a third of a 200 MB results.json that every test rewrote
 * (bench/fleet-outputs.ts). Smaller runs keep them inline, as before.
 */

/** The results as results.json stores them: big tests' series replaced by their files, written here. */
function seriesToFiles(outDir: string, results: ResultsFile, written: Set<string>): ResultsFile {
  if (!results.tests.some(bigWithSeries)) return results;
  const tests = results.tests.map((t) => {
    if (!bigWithSeries(t)) return t;
    const units = t.units.map((u) => {
      if (!u.telemetry?.series) return u;
      const file = `${RESULT_FILES.telemetry}/${fileName(t.name)}/${fileName(u.unit)}.json`;
      if (!written.has(file)) {
        const path = join(outDir, file);
        // no fsync: a series lost to a power cut costs a plot, not a verdict, and 1,000 fsyncs cost seconds
        writePrivateFileAtomic(path, JSON.stringify(u.telemetry.series));
        written.add(file);
      }
      const { series: _, ...rest } = u.telemetry;
      return { ...u, telemetry: { ...rest, seriesFile: file } };
    });
    return { ...t, units };
  });
  return { ...results, tests };
}

const bigWithSeries = (t: TestResult) => t.units.length > FLEET_UNITS && t.units.some((u) => u.telemetry?.series);

/** A test or unit name as one path segment. */
const fileName = (s: string) => s.replace(/[^A-Za-z0-9._-]/g, "_").replace(/^\.+/, "_");

/** results.json and junit.xml as above, plus report.html and summary.txt (no colour). */
export function writeFinalFiles(outDir: string, results: ResultsFile): void {
  writeRunFiles(outDir, results);
  writePages(outDir, results);
}

/**
 * Everything derived from results.json, leaving results.json itself untouched (`gpucheck report`
 * must not change a file a certificate may have hashed).
 */
export function writeReports(outDir: string, results: ResultsFile): void {
  writeFileAtomic(join(outDir, RESULT_FILES.junit), renderJunit(results));
  writeEcosystemFiles(outDir, results);
  writePages(outDir, results);
}

/**
 * report.html and summary.txt: what a finished run adds to the results.json and junit.xml its last
 * test already wrote (writing those two again cost a 1,000-node run two more copies of each).
 */
export function writePages(outDir: string, results: ResultsFile): void {
  writeFileAtomic(join(outDir, RESULT_FILES.html), renderHtml(results));
  writeFileAtomic(join(outDir, RESULT_FILES.summary), renderSummary(results, { color: false }));
}
