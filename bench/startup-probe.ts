// Where `gpucheck validate`'s start-up goes: probe binaries, built with scripts/build.ts's flags, each
// loading one more piece of what validate loads, against the floor (a hello-world built the same
// way). Whole process CPU time (user + system), median of N interleaved rounds.
//
//   node_modules/.bin/bun bench/startup-probe.ts [--runs 10]
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { COMPILE_FLAGS, X64_FLAGS } from "../scripts/compile-flags.ts";
import { median } from "./median.ts";

const root = join(import.meta.dir, "..");
const i = process.argv.indexOf("--runs");
const runs = Number(i > 0 ? process.argv[i + 1] : "10");
const work = mkdtempSync(join(tmpdir(), "gpucheck-probe-"));
// a dozen binaries of 110 MB: nothing stays behind, whatever the outcome
process.on("exit", () => rmSync(work, { recursive: true, force: true }));
const at = (p: string) => JSON.stringify(join(root, p));

// each adds to the one before; the last line prints, through node:fs as gpucheck does (cli/output.ts)
const parsers = ["burn", "dcgm", "gemm", "inventory", "membw", "nccl", "nccl-rails", "nccl-transport", "nic", "nvlink", "part", "pcie", "train"];
const steps: Array<[string, string]> = [
  ["node:fs (cli/output.ts writes through it)", ""],
  ["+ yaml (ES-module build)", `await import(${at("lib/core/yaml.ts")});`],
  ["+ the schema builder, fields, units, metrics (lib/core)", ["schema", "fields", "units", "metrics"].map((m) => `await import(${at(`lib/core/${m}.ts`)});`).join(" ")],
  ["+ the parsers the kinds import for `measure` (lib/parsers)", parsers.map((m) => `await import(${at(`lib/parsers/${m}.ts`)});`).join(" ")],
  ["+ the kinds (lib/kinds/mod.ts)", `await import(${at("lib/kinds/mod.ts")});`],
  ["+ the isolation engine (lib/isolate/mod.ts)", `await import(${at("lib/isolate/mod.ts")});`],
  ["+ the embedded suites and workload (lib/core/assets.ts)", `await import(${at("lib/core/assets.ts")});`],
  ["+ the loader (lib/load/mod.ts)", `await import(${at("lib/load/mod.ts")});`],
  [
    "+ the platform registry (cli/platforms.ts), handed to the stages",
    `(await import(${at("lib/core/platform.ts")})).registerPlatforms((await import(${at("cli/platforms.ts")})).PLATFORMS);`,
  ],
  ["+ loadSuite(h100-8x), the first (its schemas built and run)", `await (await import(${at("lib/load/mod.ts")})).loadSuite("h100-8x");`],
  ["+ loadSuite(h100-8x) again (warm)", `await (await import(${at("lib/load/mod.ts")})).loadSuite("h100-8x");`],
];

function build(name: string, source: string): string {
  writeFileSync(join(work, `${name}.ts`), source);
  const argv = [process.execPath, "build", ...COMPILE_FLAGS, "--external", "cpu-features", "--external", "*.node", ...X64_FLAGS];
  const p = Bun.spawnSync([...argv, `${name}.ts`, "--outfile", name], { cwd: work, stdout: "pipe", stderr: "pipe" });
  if (p.exitCode !== 0) throw new Error(`building ${name}: ${p.stderr.toString()}`);
  return join(work, name);
}

// top-level await is refused by --bytecode: the probes run inside an async function
const probes = [{ name: "hello-world (floor)", bin: build("floor", 'console.log("hello");\n') }];
let body = "";
steps.forEach(([name, code], k) => {
  body += `${code}\n`;
  probes.push({ name, bin: build(`p${k}`, `import { writeSync } from "node:fs";\n(async () => {\n${body}writeSync(1, "x\\n");\n})();\n`) });
});

const cpu = probes.map(() => [] as number[]);
const load: number[] = [];
for (let r = 0; r < runs; r++) {
  load.push(loadavg()[0]!);
  probes.forEach((p, k) => {
    const run = Bun.spawnSync([p.bin], { cwd: work, stdout: "pipe", stderr: "pipe" });
    if (run.exitCode !== 0) throw new Error(`${p.name}: exit ${run.exitCode}: ${run.stderr.toString()}`);
    cpu[k]!.push(Number(run.resourceUsage.cpuTime.total) / 1000);
  });
}
const floor = median(cpu[0]!);
console.log(`median of ${runs}, load average ${Math.min(...load).toFixed(1)}–${Math.max(...load).toFixed(1)}`);
console.log("| what the probe loads | CPU (ms) | × floor | added by this step (ms) |");
console.log("|---|---:|---:|---:|");
probes.forEach((p, k) => {
  const m = median(cpu[k]!);
  const added = k === 0 ? "" : (m - median(cpu[k - 1]!)).toFixed(1);
  console.log(`| ${p.name} | ${m.toFixed(1)} | ${(m / floor).toFixed(2)} | ${added} |`);
});
