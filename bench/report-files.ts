// What writing the results directory costs on a large run. The executor rewrites results.json and
// junit.xml after every test (so a crash keeps finished tests), so that cost is paid once per test;
// report.html once at the end.
//
//   node_modules/.bin/bun bench/report-files.ts [--runs 10] [--nodes 64] [--tests 6] [--samples 1800]
//
// The run: `tests` per-node collective tests over `nodes` nodes, each unit an 8 B → 8 GiB sweep
// (31 sizes, busbw/algbw/time_us) and `samples` telemetry samples × 3 series (1800 = 15 min at 0.5 s).
// Baseline in the same run: JSON.stringify(…, null, 2) of the same object (the obvious way to write it).
import { mkdtempSync, readFileSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { renderHtml } from "../lib/report/html.ts";
import { renderJunit } from "../lib/report/junit.ts";
import { parseResults, serialiseResults } from "../lib/report/results.ts";
import { writeRunFiles } from "../lib/report/write.ts";
import type { Expectation } from "../lib/core/types.ts";
import { allReduceSweep, results, telemetry, test } from "../test/fixtures/results/build.ts";

const arg = (name: string, dflt: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return Number(i > 0 ? process.argv[i + 1]! : dflt);
};
const runs = arg("runs", "10");
const nodes = arg("nodes", "64");
const tests = arg("tests", "6");
const samples = arg("samples", "1800");

const expect: Expectation[] = [{ metric: "busbw", unit: "GB/s", min: 400, text: "busbw: min 400 GB/s" }];
const tel = telemetry((samples - 1) / 2, 690);
const hosts = Array.from({ length: nodes }, (_, i) => `gpu-${String(i + 1).padStart(3, "0")}`);
const run = results(
  Array.from({ length: tests }, (_, t) =>
    test(
      `allreduce-${t}`,
      "collective",
      expect,
      hosts.map((h, i) => ({
        unit: h,
        hosts: [h],
        status: "completed" as const,
        startS: t * 100,
        durationS: 90,
        measurement: allReduceSweep(i === 7 ? 182 : 478, 8),
        tail: "[rank 0] # Avg bus bandwidth    : 187.412",
        telemetry: tel,
        ranks: 8,
      })),
      { perNode: true, nodes },
    ),
  ),
);

function median(f: () => void): number {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    f();
    times.push(performance.now() - t0);
  }
  return times.sort((a, b) => a - b)[Math.floor(times.length / 2)]!;
}

const dir = mkdtempSync(join(tmpdir(), "gpucheck-bench-"));
const json = serialiseResults(run);
const mb = (s: string) => `${(s.length / 1e6).toFixed(2)} MB`;
const rows: Array<[string, number, string]> = [
  ["JSON.stringify(run, null, 2) (baseline)", median(() => JSON.stringify(run, null, 2)), mb(JSON.stringify(run, null, 2))],
  ["serialiseResults (data arrays on one line)", median(() => serialiseResults(run)), mb(json)],
  ["renderJunit", median(() => renderJunit(run)), mb(renderJunit(run))],
  ["writeRunFiles (results.json + junit.xml, fsync, rename)", median(() => writeRunFiles(dir, run)), ""],
  ["parseResults (JSON.parse + zod)", median(() => parseResults(json, "results.json")), ""],
  ["renderHtml", median(() => renderHtml(run)), mb(renderHtml(run))],
];
const base = rows[0][1];
console.log(`${tests} per-node tests × ${nodes} nodes, ${samples} telemetry samples × 3 series per unit; median of ${runs} (ms)`);
for (const [what, ms, size] of rows) console.log(`${what.padEnd(58)} ${ms.toFixed(1).padStart(8)}  ×${(ms / base).toFixed(2).padStart(6)}  ${size}`);
console.log(
  `results.json on disk: ${(statSync(join(dir, "results.json")).size / 1e6).toFixed(1)} MB; junit.xml valid: ${readFileSync(join(dir, "junit.xml"), "utf8").startsWith("<?xml")}`,
);
