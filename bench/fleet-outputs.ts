// What the outputs cost at 100 and 1,000 nodes (issue 17): writing results.json + junit.xml after
// test 1, 5 and 10 of ten (the executor rewrites both after every test), rendering junit.xml and
// report.html, signing the certificate, results.json's size and parse time, and report.html's load
// in headless Chromium against an empty page in the same run.
//
//   node_modules/.bin/bun bench/fleet-outputs.ts [--runs 5] [--nodes 100,1000] [--chromium /usr/bin/chromium] [--cpu]
//
// The run is test/fixtures/results/fleet.ts: 8 per-node tests and 2 whole-cluster ones of the real
// kinds, 3 failing nodes and 1 lost one, per-GPU/HCA/link components and 0.5 s telemetry.
import { spawnSync } from "node:child_process";
import { generateKeyPairSync } from "node:crypto";
import { createHash } from "node:crypto";
import { cpSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { renderHtml } from "../lib/report/html.ts";
import { renderJunit } from "../lib/report/junit.ts";
import { parseResults } from "../lib/report/results.ts";
import { writeRunFiles } from "../lib/report/write.ts";
import { certify } from "../lib/sign/certify.ts";
import type { ResultsFile } from "../lib/core/types.ts";
import { fleetResults } from "../test/fixtures/results/fleet.ts";
import { median } from "./median.ts";

const arg = (name: string, dflt: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? (process.argv[i + 1] as string) : dflt;
};
const runs = Number(arg("runs", "5"));
const sizes = arg("nodes", "100,1000").split(",").map(Number);
const chromium = arg("chromium", "/usr/bin/chromium");
const base = mkdtempSync(join(tmpdir(), "gpucheck-fleet-bench-"));

// --cpu: this process's CPU time (user + system) instead of wall time. On a 2-core machine shared
// with a load of 30 to 90 the wall time measures the queue for the cores, not the code.
const cpu = process.argv.includes("--cpu");
const now = () => {
  if (!cpu) return performance.now();
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
function time(f: () => void): number {
  const t = now();
  f();
  return now() - t;
}
async function timeAsync(f: () => Promise<unknown>): Promise<number> {
  const t = now();
  await f();
  return now() - t;
}
const med = (xs: number[]) => median(xs) as number;
const ms = (x: number) => (x < 10 ? x.toFixed(1) : x.toFixed(0));

/** The write after test k: the series files of tests 1..k-1 are on disk already (the sink writes each once). */
function writeAfter(r: ResultsFile, k: number): number[] {
  const upTo = (n: number): ResultsFile => ({ ...r, tests: r.tests.slice(0, n) });
  const dir = join(base, `w${k}`);
  const before = new Set<string>();
  writeRunFiles(dir, upTo(k - 1), before);
  const out = Array.from({ length: runs }, () => time(() => writeRunFiles(dir, upTo(k), new Set(before))));
  rmSync(dir, { recursive: true, force: true });
  return out;
}

/**
 * Launch to exit of `chromium --headless --dump-dom` (which returns after the load event), in ms:
 * wall, or with --cpu the CPU time of Chromium and its children (GNU time's user + system).
 */
function chromiumLoad(file: string): number {
  const t = performance.now();
  const r = spawnSync("/usr/bin/time", ["-f", "%U %S", chromium, "--headless", "--no-sandbox", "--disable-gpu", "--dump-dom", `file://${file}`], {
    stdio: ["ignore", "ignore", "pipe"],
    encoding: "utf8",
    timeout: 300_000,
  });
  if (r.status !== 0) throw new Error(`${chromium} exited ${r.status}`);
  const [user, sys] = (r.stderr.trim().split("\n").pop() ?? "").split(" ").map(Number);
  return cpu ? (user + sys) * 1000 : performance.now() - t;
}

const rows: Record<string, Record<number, number>> = {};
const put = (what: string, n: number, v: number) => {
  rows[what] ??= {};
  rows[what][n] = v;
  console.error(`  ${n} nodes: ${what}: ${v.toFixed(2)}`);
};
const empty = join(base, "empty.html");
writeFileSync(empty, "<!DOCTYPE html><html><head><title>empty</title></head><body></body></html>");

for (const n of sizes) {
  const t0 = performance.now();
  const r = fleetResults({ nodes: n, failing: [16, Math.floor(n / 2) - 1, n - 2], missing: [Math.floor(n * 0.7)] });
  console.error(`${n} nodes: generated in ${ms(performance.now() - t0)} ms, load ${loadavg()[0].toFixed(1)}`);
  for (const k of [1, 5, 10]) put(`writeRunFiles after test ${k} (ms)`, n, med(writeAfter(r, k)));
  const dir = join(base, `full-${n}`);
  writeRunFiles(dir, r);
  const text = readFileSync(join(dir, "results.json"), "utf8");
  put("results.json size (MB)", n, statSync(join(dir, "results.json")).size / 1e6);
  put("telemetry/ files (MB)", n, Number(spawnSync("du", ["-sb", join(dir, "telemetry")], { encoding: "utf8" }).stdout.split("\t")[0]) / 1e6);
  put("JSON.parse(results.json) (ms)", n, med(Array.from({ length: runs }, () => time(() => JSON.parse(text)))));
  put("parseResults (JSON.parse + zod) (ms)", n, med(Array.from({ length: runs }, () => time(() => parseResults(text, "results.json")))));
  let xml = "";
  put("renderJunit (ms)", n, med(Array.from({ length: runs }, () => time(() => (xml = renderJunit(r))))));
  put("junit.xml size (MB)", n, xml.length / 1e6);
  let html = "";
  put("renderHtml (ms)", n, med(Array.from({ length: runs }, () => time(() => (html = renderHtml(r))))));
  put("report.html size (MB)", n, Buffer.byteLength(html) / 1e6);
  const page = join(dir, "report.html");
  writeFileSync(page, html);
  // certify: the suite file's bytes must match results.json's sha256, as after a real run
  const suite = "name: h100-fleet\n";
  const signed: ResultsFile = { ...r, suite: { ...r.suite, sha256: createHash("sha256").update(suite).digest("hex") } };
  writeRunFiles(dir, signed);
  writeFileSync(join(dir, "suite.yaml"), suite);
  const key = generateKeyPairSync("ed25519").privateKey;
  const certTimes: number[] = [];
  for (let i = 0; i < runs; i++) {
    const d = join(base, `cert-${n}-${i}`);
    cpSync(dir, d, { recursive: true, filter: (src) => !src.includes("/telemetry") });
    certTimes.push(await timeAsync(() => certify(d, key)));
    if (i === 0) put("certificate.html size (kB)", n, statSync(join(d, "certificate.html")).size / 1e3);
    rmSync(d, { recursive: true, force: true });
  }
  put("certify (read, hash, sign, verify, render) (ms)", n, med(certTimes));
  // Chromium: the report and the empty page alternately, so drift in the machine's load hits both alike
  const loads: number[] = [];
  const blanks: number[] = [];
  for (let i = 0; i < runs; i++) {
    blanks.push(chromiumLoad(empty));
    loads.push(chromiumLoad(page));
  }
  put("Chromium --dump-dom, empty page (ms)", n, med(blanks));
  put("Chromium --dump-dom, report.html (ms)", n, med(loads));
  put("report.html load over the empty page (ms)", n, med(loads) - med(blanks));
  rmSync(dir, { recursive: true, force: true });
}

console.log(
  `| median of ${runs}${cpu ? ", CPU time" : ", wall time"} | ${sizes.map((n) => `${n.toLocaleString("en")} nodes`).join(" | ")} | ${sizes.length === 2 ? `${sizes[1]} ÷ ${sizes[0]} |` : ""}`,
);
console.log(`|---|${sizes.map(() => "---:|").join("")}${sizes.length === 2 ? "---:|" : ""}`);
for (const [what, by] of Object.entries(rows)) {
  const vals = sizes.map((n) => by[n]);
  const ratio = sizes.length === 2 && vals[0] > 0 ? `| ${(vals[1] / vals[0]).toFixed(1)} ` : "";
  console.log(`| ${what} | ${vals.map((v) => (what.includes("size") || what.includes("MB") ? v.toFixed(2) : ms(v))).join(" | ")} ${ratio}|`);
}
console.log(
  `\nload average at the end: ${loadavg()
    .map((x) => x.toFixed(1))
    .join(" ")}`,
);
rmSync(base, { recursive: true, force: true });
