// The files of a results directory. results.json and junit.xml are rewritten after every test, so a
// crash, a timeout of the whole job or Ctrl-C still leaves every finished test for Jenkins; the
// page and the summary come at the end (and from `gpucheck report`).
import { mkdirSync, renameSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import type { ResultsFile, TestResult } from "../core/types.ts";
import { renderHtml } from "./html.ts";
import { renderJunit } from "./junit.ts";
import { RESULT_FILES, serialiseResults, writeFileAtomic } from "./results.ts";
import { FLEET_UNITS } from "./fleet.ts";
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
  mkdirSync(outDir, { recursive: true });
  writeFileAtomic(join(outDir, RESULT_FILES.results), serialiseResults(seriesToFiles(outDir, results, written)));
  writeFileAtomic(join(outDir, RESULT_FILES.junit), renderJunit(results));
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
        mkdirSync(dirname(path), { recursive: true });
        // no fsync: a series lost to a power cut costs a plot, not a verdict, and 1,000 fsyncs cost seconds
        writeFileSync(`${path}.tmp`, JSON.stringify(u.telemetry.series));
        renameSync(`${path}.tmp`, path);
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
  writeReports(outDir, results);
}

/**
 * Everything derived from results.json, leaving results.json itself untouched (`gpucheck report`
 * must not change a file a certificate may have hashed).
 */
export function writeReports(outDir: string, results: ResultsFile): void {
  writeFileAtomic(join(outDir, RESULT_FILES.junit), renderJunit(results));
  writeFileAtomic(join(outDir, RESULT_FILES.html), renderHtml(results));
  writeFileAtomic(join(outDir, RESULT_FILES.summary), renderSummary(results, { color: false }));
}
