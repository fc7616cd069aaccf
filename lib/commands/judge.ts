// `gpucheck judge <results-dir> --suite <file> [--baseline <results.json>]`: the saved measurements
// against another suite's thresholds, without rerunning anything. Rewrites results.json (recording
// which suite judged it), junit.xml, summary.txt and report.html; exits as a run would (0, 1 or 3).
import { err, out } from "../output.ts";
import { join } from "node:path";
import { exitCodeFor } from "../judge.ts";
import { rejudgeResults } from "../judge-results.ts";
import { loadSuite } from "../load.ts";
import { readResults, RESULT_FILES } from "../report/results.ts";
import { renderSummary } from "../report/summary.ts";
import { writeFinalFiles } from "../report/write.ts";
import { useColor } from "./color.ts";

export async function main(dir: string, flags: { suite: string; baseline?: string }): Promise<number> {
  const { dir: resultsDir, results: saved } = readResults(dir);
  const suite = await loadSuite(flags.suite);
  const baseline = flags.baseline === undefined ? undefined : readResults(flags.baseline);
  const { results, notes } = rejudgeResults(saved, suite, { baseline: baseline?.results, baselinePath: baseline?.path });
  for (const n of notes) err(`gpucheck: note: ${n}\n`);
  writeFinalFiles(resultsDir, results);
  out(`${renderSummary(results, { color: useColor(process.stdout) })}\n`);
  out(`judged with ${suite.source.path}: ${join(resultsDir, RESULT_FILES.results)} and ${RESULT_FILES.junit}, ${RESULT_FILES.html} rewritten\n`);
  return exitCodeFor(results.outcome);
}
