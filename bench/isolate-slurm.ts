// Isolating patterns on a real Slurm: the compiled binary runs pairwise and bisect over the 4 nodes
// of the namespaced Slurm cluster (test/infra/slurm-lab.sh: each node's slurmd and steps in a network
// namespace of its own), with no fault and with one node's link slowed by tc tbf, --runs times each,
// and prints per case the median wall time, the ratio against the no-fault median of the same
// pattern measured in the same invocation, the node(s) named, and the rounds and launches.
//
//   bash test/infra/slurm-lab.sh start [N]
//   node_modules/.bin/bun bench/isolate-slurm.ts [--runs 3] [--nodes 4] [--bin compiled/gpucheck]
import { readFileSync, writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { join } from "node:path";
import type { ResultsFile } from "../lib/core/types.ts";
import { tempDir } from "../test/tmp.ts";
import { median } from "./median.ts";

const arg = (name: string, dflt: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1]! : dflt;
};
const root = join(import.meta.dir, "..");
const bin = arg("bin", join(root, "compiled", "gpucheck"));
const runs = Number(arg("runs", "3"));
const vars = Object.fromEntries(
  readFileSync("/run/gpucheck-test/slurm-lab/env", "utf8")
    .split("\n")
    .filter((l) => l.includes("="))
    .map((l) => [l.slice(0, l.indexOf("=")), l.slice(l.indexOf("=") + 1)]),
);
const nodes = vars.GPUCHECK_SLURM_LAB_NODES!.split(",").slice(0, Number(arg("nodes", "4")));
const script = join(root, "test", "infra", "slurm-lab.sh");
const bad = nodes.at(-1)!;

// the suite of test/integration/isolate/slurm-isolate.test.ts, whose comments say why these numbers
function suite(dir: string, pattern: string): string {
  const path = join(dir, "suite.yaml");
  writeFileSync(
    path,
    `name: isolate-bench
defaults: { gpusPerNode: 0, ranksPerNode: 1, python: /usr/bin/python3, timeout: 120s, queueTimeout: 60s }
platform:
  type: slurm
  slurm: { stageDir: ${join(dir, "stage")}, cpusPerTask: 1, pollMaxS: 1 }
tests:
  - name: fabric
    kind: collective
    pattern: ${pattern}
    collective: { op: all_reduce, minBytes: 512KiB, maxBytes: 1MiB, iters: 3, warmup: 1, backend: gloo }
    expect:
      busbw: { min: 0.04 GB/s }
`,
  );
  return path;
}

function once(pattern: string): { wall: number; cpu: number; rss: number; named: string; rounds: number; launches: number; load: number; exit: number | null } {
  const dir = tempDir("gpucheck-isolate-slurm-bench-");
  const load = loadavg()[0]!;
  const t0 = Bun.nanoseconds();
  const p = Bun.spawnSync([bin, "suite", suite(dir, pattern), "--hosts", nodes.join(","), "--out", join(dir, "out"), "--progress", "none"], {
    env: { ...process.env, SLURM_CONF: vars.SLURM_CONF! },
    stdout: "pipe",
    stderr: "pipe",
  });
  const wall = (Bun.nanoseconds() - t0) / 1e9;
  const iso = (JSON.parse(readFileSync(join(dir, "out", "results.json"), "utf8")) as ResultsFile).tests[0]!.isolation!;
  // gpucheck's own CPU and peak RSS: the ranks run under slurmd, not as its children
  const cpu = Number(p.resourceUsage.cpuTime.total) / 1e6;
  const rss = p.resourceUsage.maxRSS / 2 ** 20;
  return { wall, cpu, rss, named: iso.bad.join(",") || "none", rounds: iso.rounds, launches: iso.launches, load, exit: p.exitCode };
}

const rows: string[] = [];
for (const pattern of ["pairwise", "bisect"]) {
  let base = 0;
  for (const fault of [false, true]) {
    const seen: ReturnType<typeof once>[] = [];
    for (let i = 0; i < runs; i++) {
      if (fault && Bun.spawnSync(["bash", script, "slow", bad, "20mbit"]).exitCode !== 0) throw new Error(`slurm-lab.sh slow ${bad} failed`);
      try {
        seen.push(once(pattern));
        console.error(pattern, fault ? "slow" : "none", JSON.stringify(seen.at(-1)));
      } finally {
        if (fault) Bun.spawnSync(["bash", script, "unslow", bad]);
      }
    }
    const wall = median(seen.map((s) => s.wall));
    if (!fault) base = wall;
    const named = [...new Set(seen.map((s) => s.named))].join(" / ");
    const walls = seen.map((s) => s.wall.toFixed(1)).join(", ");
    rows.push(
      `| ${nodes.length} | ${pattern} | ${fault ? `${bad} at 20 Mbit/s` : "none"} | ${named} | ${seen[0]!.rounds} | ${seen[0]!.launches} | ${wall.toFixed(1)} (${walls}) | ${(wall / base).toFixed(2)} | ${median(seen.map((s) => s.cpu)).toFixed(2)} | ${median(seen.map((s) => s.rss)).toFixed(0)} | ${median(seen.map((s) => s.load)).toFixed(1)} | ${[...new Set(seen.map((s) => s.exit))].join("/")} |`,
    );
  }
}
console.log(`| nodes | pattern | fault | named bad | rounds | launches | wall s, median (runs) | × no fault | gpucheck CPU s | gpucheck peak RSS MiB | load | exit |`);
console.log("|---:|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|");
for (const r of rows) console.log(r);
