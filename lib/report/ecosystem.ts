// The outputs other tools read, written beside junit.xml each time it is: ctrf.json (CTRF test
// reports), inventory.cdx.json (a CycloneDX hardware BOM) and metrics.prom (Prometheus' textfile
// collector). Each is a pure function of the results, so rewriting one changes no byte of it.
import { join } from "node:path";
import type { ResultsFile } from "../core/types.ts";
import { renderCtrf } from "./ctrf.ts";
import { renderInventoryCdx } from "./inventory-cdx.ts";
import { renderMetricsProm } from "./metrics-prom.ts";
import { RESULT_FILES, writeFileAtomic } from "./results.ts";

export function writeEcosystemFiles(outDir: string, results: ResultsFile): void {
  writeFileAtomic(join(outDir, RESULT_FILES.ctrf), renderCtrf(results));
  writeFileAtomic(join(outDir, RESULT_FILES.inventoryCdx), renderInventoryCdx(results));
  writeFileAtomic(join(outDir, RESULT_FILES.metricsProm), renderMetricsProm(results));
}
