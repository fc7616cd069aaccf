// `gpucheck report <results-dir>`: junit.xml, summary.txt and report.html again from results.json
// (after an upgrade of gpucheck, or when a run was killed before it wrote its page).
import type { Printer } from "./printer.ts";
import { join } from "node:path";
import { EXIT } from "../core/errors.ts";
import { readResults, RESULT_FILES } from "../report/results.ts";
import { renderSummary } from "../report/summary.ts";
import { existsSync } from "node:fs";
import { writePages, writeReports } from "../report/write.ts";
import { CERTIFICATE_FILE } from "../sign/verify-commands.ts";

export async function rewriteReports({ dir, print }: { dir: string; print: Printer }): Promise<number> {
  const { out } = print;
  const { dir: resultsDir, results } = readResults(dir);
  // a signed run stays signed: junit.xml is a subject of its certificate, so only the pages are written again
  const signed = existsSync(join(resultsDir, CERTIFICATE_FILE));
  if (signed) writePages(resultsDir, results);
  else writeReports(resultsDir, results);
  out(`${renderSummary(results, { color: print.color })}\n`);
  if (signed) out(`junit: ${join(resultsDir, RESULT_FILES.junit)} kept as signed (${CERTIFICATE_FILE} covers it)  report: ${join(resultsDir, RESULT_FILES.html)}\n`);
  else out(`junit: ${join(resultsDir, RESULT_FILES.junit)}  report: ${join(resultsDir, RESULT_FILES.html)}\n`);
  // a run that never ended is no result, whatever its finished tests say: the exit says so too
  return results.endedAt === null ? EXIT.infra : EXIT.ok;
}
