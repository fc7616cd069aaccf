// What a soak's index costs at fleet size (issue 28 item 3): 1,000 nodes × 72 rounds of the ten-test
// fleet run (test/fixtures/results/fleet.ts, 3 failing nodes), through the soak's own code: each
// round's figures appended to series.json and its summary to soak.json as it ends, then the index
// (results.json, junit.xml, report.html …) written from them; and what a reader of the index pays:
// parsing its results.json, rendering its junit.xml and report.html. Peak RSS of this process at the end.
//
//   node_modules/.bin/bun bench/soak-index.ts [--nodes 1000] [--rounds 72] [--cpu]
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, statSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { findComponentMetric, findMetric, isKindName } from "../lib/kinds/mod.ts";
import { renderHtml } from "../lib/report/html.ts";
import { renderJunit } from "../lib/report/junit.ts";
import { parseResults } from "../lib/report/results.ts";
import { writePages, writeRunFiles } from "../lib/report/write.ts";
import { roundSummaries, soakIndex } from "../lib/soak/index-results.ts";
import { appendRound, emptySeries, readSeries, writeSeries } from "../lib/soak/series.ts";
import { type SoakState, writeSoakState } from "../lib/soak/state.ts";
import { trendsOf } from "../lib/soak/trend.ts";
import { fleetResults } from "../test/fixtures/results/fleet.ts";

const arg = (name: string, dflt: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? (process.argv[i + 1] as string) : dflt;
};
const nodes = Number(arg("nodes", "1000"));
const rounds = Number(arg("rounds", "72"));
// --cpu: this process's CPU time instead of wall time (the 2-core machine is shared)
const cpu = process.argv.includes("--cpu");
const now = () => (cpu ? (process.cpuUsage().user + process.cpuUsage().system) / 1000 : performance.now());
const dir = mkdtempSync(join(tmpdir(), "gpucheck-soak-bench-"));
const metricInfo = (kind: string, metric: string) => (isKindName(kind) ? (findComponentMetric(kind, metric) ?? findMetric(kind, metric)) : undefined);

const results = fleetResults({ nodes, failing: [3, 17, 500] });
const state: SoakState = {
  version: 1,
  suite: "fleet",
  flags: {},
  rounds,
  everyS: 3600,
  forS: rounds * 3600,
  maxDrift: 0.1,
  startedAt: results.startedAt,
  command: ["gpucheck", "soak", "fleet"],
  history: [],
  suiteInfo: results.suite,
  platform: results.platform,
  inventory: results.inventory,
};
const series = emptySeries();
const perRound: number[] = [];
for (let r = 1; r <= rounds; r++) {
  const t0 = now();
  const round = {
    round: r,
    dir: `rounds/${String(r).padStart(3, "0")}`,
    startedAt: results.startedAt,
    endedAt: results.endedAt,
    outcome: results.outcome,
    complete: true,
    resultsSha256: "0".repeat(64),
  };
  state.history.push({ ...round, tests: roundSummaries(round, results) });
  appendRound(series, r, results);
  writeSeries(dir, series);
  writeSoakState(dir, state);
  perRound.push(now() - t0);
}
let t0 = now();
const again = readSeries(dir);
const readSeriesMs = now() - t0;
t0 = now();
const trends = trendsOf(again, { maxDrift: state.maxDrift, metricInfo });
const trendsMs = now() - t0;
t0 = now();
const index = soakIndex(state, trends, { ended: true, endedAt: results.endedAt, version: "bench" });
writeRunFiles(dir, index);
writePages(dir, index);
const writeMs = now() - t0;
const size = (f: string) => (statSync(join(dir, f)).size / 2 ** 20).toFixed(1);
t0 = now();
const parsed = parseResults(readFileSync(join(dir, "results.json"), "utf8"), "results.json");
const parseMs = now() - t0;
t0 = now();
renderJunit(parsed);
const junitMs = now() - t0;
t0 = now();
renderHtml(parsed);
const htmlMs = now() - t0;
const med = [...perRound].sort((a, b) => a - b)[perRound.length >> 1]!;
console.log(`soak index at ${nodes} nodes × ${rounds} rounds (${cpu ? "CPU" : "wall"} ms):`);
console.log(`  per round (summary + series append + write): median ${med.toFixed(0)}, last ${perRound.at(-1)!.toFixed(0)}`);
console.log(`  read series.json ${readSeriesMs.toFixed(0)}, trends ${trendsMs.toFixed(0)} (${trends.length} series), write the index ${writeMs.toFixed(0)}`);
console.log(
  `  sizes MiB: series.json ${size("series.json")}, soak.json ${size("soak.json")}, results.json ${size("results.json")}, junit.xml ${size("junit.xml")}, report.html ${size("report.html")}`,
);
console.log(`  reading the index: parse results.json ${parseMs.toFixed(0)}, render junit ${junitMs.toFixed(0)}, render report.html ${htmlMs.toFixed(0)}`);
console.log(`  peak RSS of this process (which also holds the 1,000-node run it repeats) ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MiB`);
// a reader of the index on its own: `gpucheck report` (reads results.json, writes junit.xml, report.html, summary)
const report = spawnSync("/usr/bin/time", ["-f", "%e %M", process.execPath, join(import.meta.dir, "..", "mod.ts"), "report", dir], { encoding: "utf8" });
const [wall, kb] = (report.stderr.trim().split("\n").at(-1) ?? "").split(" ");
console.log(`  gpucheck report <index> (its own process): exit ${report.status}, ${wall} s wall, peak RSS ${(Number(kb) / 1024).toFixed(0)} MiB`);
rmSync(dir, { recursive: true, force: true });
