// Per-node mode on Slurm: one job with one step per node, against a real Slurm with 4 and 32
// logical nodes (test/infra/slurm.sh, every slurmd on this 2-core host). For each size, the time
// from sbatch to verdicts and every scheduler command run, counted through PATH shims both on
// gpucheck's side and inside the job. Baseline in the same run: one job per node (N single-node
// jobs pinned with --nodelist, submitted at once, each followed by its own polling), which is
// what a sweep without per-node support costs.
//
//   node_modules/.bin/bun bench/slurm-pernode.ts [--runs 5] [--nodes 4,32] [--ranks 2] [--staging sbcast,shared]
//
// Staging: "sbcast" (the default: the job copies the workload to node-local /tmp and unpacks it in
// one extra step, then removes it in another) or "shared" (platform.slurm.stageDir: imported from a
// directory every node sees, no extra steps).
// Reconfigures the local Slurm for each node count and leaves it at 4 nodes (the tests' size).
import { spawnSync } from "node:child_process";
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import type { UnitRun } from "../lib/core/types.ts";
import { runSlurm } from "../plugins/slurm/run.ts";
import type { RunContext } from "../lib/core/platform.ts";
import type { SlurmSettings } from "../plugins/slurm/settings.ts";
import { scriptTest } from "../test/platforms/conformance.ts";
import { removeSlurmContexts, slurmContext } from "../test/platforms/slurm-context.ts";

const arg = (name: string, dflt: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1]! : dflt;
};
const runs = Number(arg("runs", "5"));
const sizes = arg("nodes", "4,32").split(",").map(Number);
const ranks = Number(arg("ranks", "2"));
const stagings = arg("staging", "sbcast,shared").split(",") as Array<"sbcast" | "shared">;
const sharedStage = mkdtempSync(join(tmpdir(), "gpucheck-bench-stage-"));
const root = join(import.meta.dir, "..");
const COMMANDS = ["sbatch", "squeue", "sacct", "scontrol", "sinfo", "scancel", "srun", "sbcast"];

// PATH shims: each call appends "<command> <side>" to $GPUCHECK_BENCH_CALLS and runs the real one
const shims = mkdtempSync(join(tmpdir(), "gpucheck-bench-shims-"));
for (const c of COMMANDS) {
  const real = spawnSync("bash", ["-c", `command -v ${c}`], { encoding: "utf8" }).stdout.trim();
  writeFileSync(join(shims, c), `#!/bin/bash\necho "${c} \${SLURM_JOB_ID:+job} $(date +%s%3N)" >> "$GPUCHECK_BENCH_CALLS"\nexec ${real} "$@"\n`);
  chmodSync(join(shims, c), 0o755);
}
process.env.PATH = `${shims}:${process.env.PATH}`;

function counts(file: string): { gpucheck: Record<string, number>; job: Record<string, number>; firstSbatch: number } {
  const out = { gpucheck: {} as Record<string, number>, job: {} as Record<string, number>, firstSbatch: Infinity };
  let text = "";
  try {
    text = readFileSync(file, "utf8");
  } catch {}
  for (const line of text.split("\n").filter(Boolean)) {
    const [cmd, side, ms] = line.split(" ");
    const bucket = side === "job" ? out.job : out.gpucheck;
    if (cmd === "sbatch") out.firstSbatch = Math.min(out.firstSbatch, Number(ms));
    bucket[cmd!] = (bucket[cmd!] ?? 0) + 1;
  }
  return out;
}

const CODE = "import os; print('node', os.environ['GPUCHECK_NODE'], 'rank', os.environ['RANK'], flush=True)";

function ctx(test: ReturnType<typeof scriptTest>, staging: "sbcast" | "shared", cli: { hosts?: string[] } = {}): RunContext<SlurmSettings> {
  const c = slurmContext(
    { ...test, timeoutMs: 600_000 },
    { settings: { pollMaxS: 5, ...(staging === "shared" ? { stageDir: sharedStage } : {}) }, suite: { name: "bench", queueTimeoutMs: 300_000 }, cli },
  );
  return { ...c, onLine: () => {} };
}

interface Sample {
  /** first sbatch → every verdict returned */
  ms: number;
  /** the whole run() call, sinfo and staging included */
  totalMs: number;
  calls: ReturnType<typeof counts>;
  completed: number;
}

/** Waits until no node is still busy with an earlier job (completing jobs delay the next start by ~1 s). */
async function settle(): Promise<void> {
  for (let i = 0; i < 300; i++) {
    const busy = spawnSync("/usr/bin/sinfo", ["-h", "-t", "alloc,mix,comp", "-o", "%N"], { encoding: "utf8" }).stdout.trim();
    const jobs = spawnSync("/usr/bin/squeue", ["-h", "-o", "%i"], { encoding: "utf8" }).stdout.trim();
    if (!busy && !jobs) return;
    await Bun.sleep(100);
  }
  throw new Error("the local Slurm did not go idle within 30 s");
}

/**
 * This slurmctld starts a pending job at the next whole second (submit at 12.1 s or 12.9 s, start at
 * ~13.05 s: measured with sbatch --wrap date), which would add 0–1 s of noise to every figure; every
 * measured run therefore submits at the same phase, 100 ms after a whole second.
 */
async function alignToSecond(phaseMs = 100): Promise<void> {
  await Bun.sleep((phaseMs - (Date.now() % 1000) + 1000) % 1000);
}

async function measure(run: () => Promise<UnitRun[]>, nodes: number): Promise<Sample> {
  await settle();
  await alignToSecond();
  const file = join(mkdtempSync(join(tmpdir(), "gpucheck-bench-calls-")), "calls");
  process.env.GPUCHECK_BENCH_CALLS = file;
  const t0 = performance.now();
  const units = await run();
  const totalMs = performance.now() - t0;
  const calls = counts(file);
  rmSync(dirname(file), { recursive: true, force: true });
  const ms = Date.now() - calls.firstSbatch;
  const completed = units.filter((u) => u.status === "completed").length;
  if (completed !== nodes) throw new Error(`expected ${nodes} completed units, got ${units.map((u) => `${u.unit}:${u.status} ${u.message ?? ""}`).join("; ")}`);
  return { ms, totalMs, calls, completed };
}

/** The sweep as gpucheck runs it: one job, one step per node. */
const sweep = (nodes: number, staging: "sbcast" | "shared") =>
  measure(() => runSlurm(ctx({ ...scriptTest("sweep", "/usr/bin/python3", CODE, { ranksPerNode: ranks }), perNode: true, worldSize: ranks }, staging)), nodes);

/** Baseline: one single-node job per node, all submitted at once, each followed on its own. */
const perJob = (nodes: number, staging: "sbcast" | "shared") =>
  measure(async () => {
    const names = Array.from({ length: nodes }, (_, i) => `node${i + 1}`);
    const all = await Promise.all(names.map((n) => runSlurm(ctx(scriptTest(`one-${n}`, "/usr/bin/python3", CODE, { ranksPerNode: ranks }), staging, { hosts: [n] }))));
    return all.flat();
  }, nodes);

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};
const med = (samples: Sample[], side: "gpucheck" | "job", cmd: string) => median(samples.map((s) => s.calls[side][cmd] ?? 0));
const fmt = (samples: Sample[], side: "gpucheck" | "job") =>
  COMMANDS.filter((c) => samples.some((s) => s.calls[side][c]))
    .map((c) => `${c} ${med(samples, side, c)}`)
    .join(", ");

function slurmNodes(n: number): void {
  const r = spawnSync("bash", [join(root, "test/infra/slurm.sh"), "start"], { env: { ...process.env, SLURM_NODES: String(n) }, encoding: "utf8" });
  if (r.status !== 0) throw new Error(`test/infra/slurm.sh start with ${n} nodes failed:\n${r.stderr}`);
}

const rows: string[] = [];
const loadBefore = loadavg()
  .map((l) => l.toFixed(1))
  .join(" ");
try {
  for (const n of sizes) {
    slurmNodes(n);
    for (const staging of stagings) {
      const ours: Sample[] = [];
      const base: Sample[] = [];
      for (let i = 0; i < runs; i++) {
        ours.push(await sweep(n, staging));
        base.push(await perJob(n, staging));
      }
      const m = median(ours.map((s) => s.ms));
      const b = median(base.map((s) => s.ms));
      const mt = median(ours.map((s) => s.totalMs));
      rows.push(
        `| ${n} × ${ranks} | ${staging} | ${(m / 1000).toFixed(2)} s (${(mt / 1000).toFixed(2)} s) | ${fmt(ours, "gpucheck")} | ${fmt(ours, "job")} | ${(b / 1000).toFixed(2)} s | ${fmt(base, "gpucheck")} | ${fmt(base, "job")} | ${(b / m).toFixed(2)}× |`,
      );
      console.error(
        `nodes ${n}, ${staging}: sweep ${ours.map((s) => (s.ms / 1000).toFixed(2)).join(" ")} s; one job per node ${base.map((s) => (s.ms / 1000).toFixed(2)).join(" ")} s`,
      );
    }
  }
} finally {
  if (sizes.some((n) => n !== 4)) slurmNodes(4);
  removeSlurmContexts();
  rmSync(shims, { recursive: true, force: true });
  rmSync(sharedStage, { recursive: true, force: true });
}
console.log(
  `load average during the run: ${loadBefore} at the start, ${loadavg()
    .map((l) => l.toFixed(1))
    .join(" ")} at the end (${cpus().length} CPUs)\n`,
);
console.log(
  "| nodes × ranks | staging | per-node sweep: sbatch → verdicts (whole run) | its calls from gpucheck | its calls inside the job | one job per node: first sbatch → last verdict | their calls from gpucheck | their calls inside the jobs | time ratio |",
);
console.log("|---|---|---|---|---|---|---|---|---|");
for (const r of rows) console.log(r);
