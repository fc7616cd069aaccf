// The docs say what the code does: docs/outputs.md's results table names every file a run writes,
// and the README's and docs/writing-suites.md's example thresholds are the built-in suite's.
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { RESULT_FILES } from "../lib/report/results.ts";
import { LOCK_FILE } from "../lib/report/run-dir.ts";
import { RESOLVED_SUITE } from "../lib/load/read.ts";
import { loadSuite } from "../lib/load/mod.ts";

const root = join(import.meta.dir, "..");
const readme = readFileSync(join(root, "README.md"), "utf8");
const outputs = readFileSync(join(root, "docs", "outputs.md"), "utf8");
const writingSuites = readFileSync(join(root, "docs", "writing-suites.md"), "utf8");

test("the results table lists every file and directory a run writes", () => {
  const table = outputs.slice(outputs.indexOf("## The results directory"));
  const rows = [...table.matchAll(/^\| `([^`]+)`/gm)].map((m) => m[1]);
  for (const name of [
    RESULT_FILES.results,
    RESULT_FILES.junit,
    RESULT_FILES.ctrf,
    RESULT_FILES.inventoryCdx,
    RESULT_FILES.metricsProm,
    RESULT_FILES.html,
    RESULT_FILES.summary,
    "suite.yaml",
    RESOLVED_SUITE,
    "workload/",
    LOCK_FILE,
  ]) {
    expect(rows).toContain(name);
  }
  expect(rows.some((r) => r!.startsWith(`${RESULT_FILES.logs}/`))).toBe(true);
  expect(rows.some((r) => r!.startsWith(`${RESULT_FILES.telemetry}/`))).toBe(true);
});

test("the introduction's example thresholds are h100-8x's", async () => {
  const suite = await loadSuite("h100-8x");
  const min = (test: string, metric: string) => suite.tests.find((t) => t.name === test)!.expect.find((e) => e.metric === metric)!.min;
  expect(min("nvlink-allreduce", "busbw")).toBe(460);
  expect(min("resnet50-synthetic", "samples_per_s")).toBe(15400);
  expect(readme).toContain("measured metrics (`busbw ≥ 460 GB/s at 8 GiB`, `wrong = 0`, `samples_per_s ≥ 15400 img/s` on 8 H100s:");
  // the suite language's 2-node example doubles the 8-GPU total, as validate's warning asks
  expect(writingSuites).toContain("samples_per_s: { min: 30800 img/s, baseline: 95% }   # a total: h100-8x's 15400 for 8 GPUs × 2 nodes");
});
