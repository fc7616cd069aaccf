// Isolating patterns on real hosts: the compiled binary runs pairwise and bisect over N hosts of the
// fault lab (test/infra/netns.sh: network namespaces with their own sshd), with no fault and with one
// host's link slowed by tc tbf, and reports per run the wall time, the rounds and launches the
// isolation took (from results.json), the naive all-pairs count, and gpucheck's own peak RSS and CPU
// (the child's rusage: the ranks run under the hosts' sshd, not under gpucheck).
//
//   bash test/infra/netns.sh start 8
//   node_modules/.bin/bun bench/isolate-ssh.ts [--hosts 4,8] [--bin compiled/gpucheck]
import { readFileSync, writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { join } from "node:path";
import type { ResultsFile } from "../lib/core/types.ts";
import { tempDir } from "../test/tmp.ts";

const arg = (name: string, dflt: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1]! : dflt;
};
const root = join(import.meta.dir, "..");
const bin = arg("bin", join(root, "compiled", "gpucheck"));
const sizes = arg("hosts", "4,8").split(",").map(Number);
const env = Object.fromEntries(
  readFileSync("/run/gpucheck-test/netns/env", "utf8")
    .split("\n")
    .filter((l) => l.includes("="))
    .map((l) => [l.slice(0, l.indexOf("=")), l.slice(l.indexOf("=") + 1)]),
);
const lab = env.GPUCHECK_NETNS_HOSTS!.split(",");
const script = join(root, "test", "infra", "netns.sh");

function suite(dir: string, pattern: string): string {
  const path = join(dir, "suite.yaml");
  writeFileSync(
    path,
    `name: isolate-bench
defaults: { gpusPerNode: 0, ranksPerNode: 1, python: /usr/bin/python3, timeout: 120s }
platform:
  type: ssh
  ssh: { configFile: ${env.GPUCHECK_NETNS_SSH_CONFIG} }
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

const rows: string[] = [];
for (const n of sizes) {
  if (n > lab.length) throw new Error(`--hosts ${n}: the lab has ${lab.length} hosts: bash test/infra/netns.sh start ${n}`);
  for (const pattern of ["pairwise", "bisect"]) {
    for (const fault of [false, true]) {
      const bad = lab[n - 1]!;
      if (fault) Bun.spawnSync(["bash", script, "slow", bad, "20mbit"]);
      try {
        const dir = tempDir("gpucheck-isolate-bench-");
        const load = loadavg()[0]!;
        const t0 = Bun.nanoseconds();
        const p = Bun.spawnSync([bin, "suite", suite(dir, pattern), "--hosts", lab.slice(0, n).join(","), "--out", join(dir, "out"), "--progress", "none"], {
          stdout: "pipe",
          stderr: "pipe",
        });
        const wall = (Bun.nanoseconds() - t0) / 1e9;
        const r = JSON.parse(readFileSync(join(dir, "out", "results.json"), "utf8")) as ResultsFile;
        const iso = r.tests[0]!.isolation!;
        const named = iso.bad.join(",") || "none";
        const cpu = Number(p.resourceUsage.cpuTime.total) / 1e6;
        const rss = p.resourceUsage.maxRSS / 2 ** 20;
        rows.push(
          `| ${n} | ${pattern} | ${fault ? `${bad} at 20 Mbit/s` : "none"} | ${named} | ${iso.rounds} | ${iso.launches} | ${(n * (n - 1)) / 2} | ${wall.toFixed(1)} | ${cpu.toFixed(2)} | ${rss.toFixed(0)} | ${load.toFixed(1)} | ${p.exitCode} |`,
        );
        console.error(rows.at(-1));
      } finally {
        if (fault) Bun.spawnSync(["bash", script, "unslow", bad]);
      }
    }
  }
}
console.log("| hosts | pattern | fault | named bad | rounds | launches | all pairs | wall (s) | gpucheck CPU (s) | gpucheck peak RSS (MiB) | load | exit |");
console.log("|---:|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|");
for (const r of rows) console.log(r);
