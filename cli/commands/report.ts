// `gpucheck report <results-dir>`: junit.xml, summary.txt and report.html again from results.json (lib/pipeline/report.ts).
import { rewriteReports } from "../../lib/pipeline/report.ts";
import { printer } from "./print.ts";

export async function main(dir: string): Promise<number> {
  return rewriteReports({ dir, print: printer() });
}
