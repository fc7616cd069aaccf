// `gpucheck validate` on a generated 500-test suite and `gpucheck --version`, whole-process wall
// time, median of N runs (targets on these 2-core machines: --version ≤ 50 ms, validate ≤ 200 ms).
//
//   node_modules/.bin/bun bench/validate.ts [--runs 10] [--tests 500] [--bin compiled/gpucheck]
//
// Without compiled/gpucheck (`npm run build`) it times `bun mod.ts` instead, which compiles the
// TypeScript on every start and so is far slower; the figures say which one ran.
// Baselines from the same run: `--version` (process start-up, part of every figure),
// `validate cpu-smoke` (a 3-test built-in), the same 500 tests with one YAML anchor (which takes
// the `yaml` package's exact path instead of Bun's native parser), and the in-process cost of
// loadSuite on the 500-test file, so start-up, parsing and checking can be told apart.
// Every validate run's exit code and output are checked, so a fast failure cannot pass.
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { loadSuite } from "../lib/load/mod.ts";
import { registerPlatforms } from "../lib/core/platform.ts";
import { PLATFORMS } from "../cli/platforms.ts";

registerPlatforms(PLATFORMS);

const arg = (name: string, dflt: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1]! : dflt;
};
const root = join(import.meta.dir, "..");
const runs = Number(arg("runs", "10"));
const count = Number(arg("tests", "500"));
const compiled = join(root, "compiled", "gpucheck");
const bin = arg("bin", existsSync(compiled) ? compiled : "");
const cli = bin ? [bin] : [process.execPath, join(root, "mod.ts")];

/** A suite like a large site's: per-pair collectives, training variants and per-node inventories. */
export function generateSuite(n: number): string {
  const lines = [
    "name: generated-500",
    "description: a generated suite for the validate benchmark",
    "platform:",
    "  type: slurm",
    "  slurm: { partition: gpu, exclusive: true }",
    "defaults:",
    "  timeout: 20m",
    "  gpusPerNode: 8",
    "  env: { NCCL_DEBUG: WARN, NCCL_IB_TIMEOUT: 22 }",
    "tests:",
  ];
  const ops = ["all_reduce", "all_gather", "reduce_scatter", "alltoall"];
  for (let i = 0; i < n; i++) {
    switch (i % 4) {
      case 0:
      case 1:
        lines.push(
          `  - name: coll-${i}`,
          "    kind: collective",
          `    nodes: ${1 + (i % 8)}`,
          `    env: { NCCL_ALGO: Ring, NCCL_MIN_CTAS: ${8 + (i % 24)} }`,
          `    collective: { op: ${ops[i % 4]}, minBytes: 8B, maxBytes: ${2 ** (i % 4)}GiB, factor: 2, iters: 20, warmup: 5 }`,
          "    expect:",
          `      busbw: { min: ${300 + (i % 90)} GB/s }`,
          "      busbw@1GiB: { min: 0.25 TB/s }",
          "      time_us@8B: { max: 0.1 ms }",
          "      wrong: { max: 0 }",
        );
        break;
      case 2:
        lines.push(
          `  - name: train-${i}`,
          "    kind: train",
          `    timeout: 1h30m`,
          i % 8 === 2
            ? "    train: { model: transformer, batchSize: 8, steps: 40, warmupSteps: 8, layers: 24, width: 2048, heads: 16 }"
            : "    train: { model: resnet50, data: synthetic, batchSize: 256, steps: 150, warmupSteps: 30 }",
          "    expect:",
          i % 8 === 2 ? "      tflops: { min: 1180 TFLOP/s }" : "      samples_per_s: { min: 15400 img/s, baseline: 95% }",
          "      step_time_p95_ms: { max: 2 s }",
        );
        break;
      default:
        lines.push(
          `  - name: inventory-${i}`,
          "    kind: inventory",
          "    expect: { gpu_count: { min: 8 }, nvlink_inactive: { max: 0 }, ecc_uncorrected: { max: 0 }, xid_events: { max: 0 } }",
        );
    }
  }
  return `${lines.join("\n")}\n`;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/** Wall ms of each run; CPU ms (user + system) alongside, which a loaded machine disturbs less. */
const cpuOf = new WeakMap<number[], number[]>();

function time(args: string[], check: (out: string, code: number | null) => void): number[] {
  const ms: number[] = [];
  const cpu: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    const p = Bun.spawnSync([...cli, ...args]);
    ms.push(performance.now() - t0);
    cpu.push(Number(p.resourceUsage.cpuTime.total) / 1000);
    check(p.stdout.toString() + p.stderr.toString(), p.exitCode);
  }
  cpuOf.set(ms, cpu);
  return ms;
}

if (import.meta.main) {
  const dir = mkdtempSync(join(tmpdir(), "gpucheck-bench-validate-"));
  const file = join(dir, "generated.yaml");
  writeFileSync(file, generateSuite(count));
  const valid = (what: string) => (out: string, code: number | null) => {
    if (code !== 0 || !out.includes(": valid: ")) throw new Error(`${what} failed (exit ${code}): ${out.slice(0, 500)}`);
  };
  const version = time(["--version"], (out, code) => {
    if (code !== 0 || !/^gpucheck \d+\.\d+\.\d+/.test(out)) throw new Error(`--version failed: ${out}`);
  });
  const small = time(["validate", "cpu-smoke"], valid("validate cpu-smoke"));
  const big = time(["validate", file], valid(`validate ${file}`));
  // the same suite with one YAML anchor: no longer plain (lib/load/yaml-plain.ts), so read by the
  // `yaml` package, which keeps positions: the cost the fast path avoids
  const exactFile = join(dir, "generated-anchor.yaml");
  writeFileSync(exactFile, generateSuite(count).replace("tests:\n", "x-anchor: &a 1\ntests:\n"));
  const exact = time(["validate", exactFile], valid(`validate ${exactFile}`));
  const inProcess: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    const s = await loadSuite(file);
    inProcess.push(performance.now() - t0);
    if (s.tests.length !== count) throw new Error(`loaded ${s.tests.length} tests, expected ${count}`);
  }
  rmSync(dir, { recursive: true });
  const f = (xs: number[]) => `${median(xs).toFixed(1)} ms${cpuOf.has(xs) ? ` (cpu ${median(cpuOf.get(xs)!).toFixed(1)} ms)` : ""}`;
  console.log(`binary: ${cli.join(" ")}   runs: ${runs}   suite: ${count} tests   load average: ${loadavg()[0].toFixed(1)}`);
  console.log("median wall time (median CPU time, user + system)");
  console.log(`--version                        ${f(version)}   (target ≤ 50 ms)`);
  console.log(`validate cpu-smoke (3 tests)     ${f(small)}`);
  console.log(`validate generated (${count} tests)  ${f(big)}   (target ≤ 200 ms)   ${(median(big) / median(version)).toFixed(1)}× --version`);
  console.log(`validate same, via yaml package   ${f(exact)}   (${(median(exact) / median(big)).toFixed(1)}× the fast path)`);
  console.log(`loadSuite in-process (${count} tests) ${f(inProcess)}   (after the first run; modules already loaded)`);
}
