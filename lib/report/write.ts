// The files of a results directory. results.json and junit.xml are rewritten after every test, so a
// crash, a timeout of the whole job or Ctrl-C still leaves every finished test for Jenkins; the
// page and the summary come at the end (and from `gpucheck report`).
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { ResultsFile } from "../core/types.ts";
import { renderHtml } from "./html.ts";
import { renderJunit } from "./junit.ts";
import { RESULT_FILES, serialiseResults, writeFileAtomic } from "./results.ts";
import { renderSummary } from "./summary.ts";

/** Where the pipeline puts results.json and junit.xml after every test. */
export type Sink = (results: ResultsFile) => void;

export function runFilesSink(outDir: string): Sink {
  return (results) => writeRunFiles(outDir, results);
}

export function writeRunFiles(outDir: string, results: ResultsFile): void {
  mkdirSync(outDir, { recursive: true });
  writeFileAtomic(join(outDir, RESULT_FILES.results), serialiseResults(results));
  writeFileAtomic(join(outDir, RESULT_FILES.junit), renderJunit(results));
}

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
