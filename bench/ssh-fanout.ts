// Fan-out over ssh: gpucheck's ssh platform against `pdsh -R ssh` running the same command on the
// same hosts, alternating, in the same run. Hosts are real sshd's on loopback (test/infra/ssh.sh):
// 4 hosts with one sshd each, and 200 addresses served 16 per sshd.
//
//   bun bench/ssh-fanout.ts [--reps 7] [--bench-hosts 200] [--fanout 32]
//
// --fanout is gpucheck's maxParallel (its default, 32). pdsh runs with -f = the host count: its
// fan-out bounds the commands in flight, not the connections being set up, so with -f 32 the 33rd
// host would start only when a command ends — a distributed job's ranks must all run at once.
//
// Every rank (and every pdsh command) runs the same Python one-liner: print the wall clock, sleep 1 s.
// "all running" = the latest of those clocks minus the moment the run was started (same machine,
// same clock); "total" = until the launcher returned; "overhead" = total − the 1 s sleep.
// gpucheck is called in-process (the platform's run(), as the executor does), warm: the workload is
// already staged, as on any run after the first (the cold first run is reported once).
import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { workloadFiles, workloadHash } from "../lib/core/assets.ts";
import type { Launch, Suite, TestSpec } from "../lib/core/types.ts";
import { ssh } from "../plugins/ssh.ts";
import type { RunContext } from "../lib/core/platform.ts";
import { COLLECTIVE_DEFAULTS } from "../lib/kinds/collective/params.ts";

const arg = (name: string, d: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : d;
};
const REPS = arg("reps", 7);
const BENCH_HOSTS = arg("bench-hosts", 200);
const FANOUT = arg("fanout", 32);
const SLEEP_S = 1;
const PY = "/usr/bin/python3";
const CODE = `import time; print("up %.6f" % time.time(), flush=True); time.sleep(${SLEEP_S})`;

const root = join(import.meta.dir, "..");
execFileSync("bash", [join(root, "test/infra/ssh.sh"), "start", String(4 + BENCH_HOSTS)], { stdio: "inherit" });
const env = Object.fromEntries(
  readFileSync("/run/gpucheck-test/ssh/env", "utf8")
    .split("\n")
    .filter((l) => l.includes("="))
    .map((l) => [l.slice(0, l.indexOf("=")), l.slice(l.indexOf("=") + 1)]),
);
const CONFIG = env.GPUCHECK_SSH_CONFIG!;
const USER = env.GPUCHECK_SSH_USER!;

interface Sample {
  allRunningS: number;
  totalS: number;
  ranks: number;
}

async function gpucheck(hosts: string[]): Promise<Sample> {
  const launch: Launch = { python: PY, args: ["-c", CODE], env: {}, files: [...workloadFiles().keys()] };
  const spec: TestSpec = {
    name: "fanout",
    kind: "collective",
    nodes: hosts.length,
    gpusPerNode: 0,
    ranksPerNode: 1,
    perNode: false,
    timeoutMs: 300_000,
    env: {},
    python: PY,
    collective: { ...COLLECTIVE_DEFAULTS },
    expect: [],
  };
  const suite: Suite = {
    name: "bench",
    description: "",
    platform: { type: "ssh", settings: {} },
    queueTimeoutMs: 0,
    tests: [spec],
    source: { path: "bench.yaml", sha256: "", builtin: true },
  };
  const out = mkdtempSync(join(tmpdir(), "gpucheck-bench-ssh-"));
  const ups: number[] = [];
  const t0 = Date.now() / 1000;
  const ctx: RunContext<ReturnType<typeof ssh.settings.parse>> = {
    suite,
    settings: ssh.settings.parse({ configFile: CONFIG, maxParallel: FANOUT }),
    cli: { hosts },
    test: {
      name: "fanout",
      kind: "collective",
      nodes: hosts.length,
      gpusPerNode: 0,
      ranksPerNode: 1,
      worldSize: hosts.length,
      perNode: false,
      timeoutMs: 300_000,
      launch,
      expect: [],
      spec,
    },
    launch,
    workloadHash: workloadHash(),
    outDir: out,
    logDir: join(out, "logs"),
    workload: workloadFiles(),
    signal: new AbortController().signal,
    deadline: Date.now() + 300_000,
    onLine: (_u, _r, line) => {
      if (line.startsWith("up ")) ups.push(Number(line.slice(3)));
    },
    note: () => {},
  };
  const units = await ssh.run(ctx);
  const total = Date.now() / 1000 - t0;
  if (units[0]!.status !== "completed" || ups.length !== hosts.length)
    throw new Error(`gpucheck run failed: ${units[0]!.status} ${units[0]!.message ?? ""} (${ups.length} ranks up)`);
  return { allRunningS: Math.max(...ups) - t0, totalS: total, ranks: ups.length };
}

export function pdshArgv(hosts: string, count: number): string[] {
  return ["pdsh", "-R", "ssh", "-f", String(count), "-l", USER, "-w", hosts, `${PY} -c '${CODE}'`];
}

function pdsh(hosts: string, count: number): Promise<Sample> {
  return new Promise((resolve, reject) => {
    const t0 = Date.now() / 1000;
    const argv = pdshArgv(hosts, count);
    // pdsh's ssh module: PDSH_SSH_ARGS replaces its default "-2 -a -x -l%u %h"
    const child = spawn(argv[0]!, argv.slice(1), { env: { ...process.env, PDSH_SSH_ARGS: `-F ${CONFIG} -o BatchMode=yes -l%u %h` } });
    let out = "";
    let err = "";
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (err += d));
    child.on("close", (code) => {
      const total = Date.now() / 1000 - t0;
      const ups = [...out.matchAll(/: up (\d+\.\d+)$/gm)].map((m) => Number(m[1]));
      if (code !== 0 || ups.length !== count) return reject(new Error(`pdsh failed (${code}, ${ups.length} up): ${err.slice(-500)}`));
      resolve({ allRunningS: Math.max(...ups) - t0, totalS: total, ranks: ups.length });
    });
  });
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

const testHosts = env.GPUCHECK_SSH_HOSTS!.split(",");
const benchHosts = env.GPUCHECK_SSH_BENCH_HOSTS!.split(",").filter(Boolean).slice(0, BENCH_HOSTS);
const scenarios = [
  { name: "4 hosts (one sshd each)", hosts: testHosts, pdshHosts: testHosts.join(",") },
  { name: `${benchHosts.length} hosts (16 addresses per sshd)`, hosts: benchHosts, pdshHosts: `127.0.1.[1-${benchHosts.length}]` },
];

const rows: string[] = [];
for (const sc of scenarios) {
  execFileSync("bash", ["-c", `rm -rf ~${USER}/.cache/gpucheck`]);
  const cold = await gpucheck(sc.hosts);
  const g: Sample[] = [];
  const p: Sample[] = [];
  for (let i = 0; i < REPS; i++) {
    // alternate which goes first so that neither always meets a warmer machine
    if (i % 2) {
      g.push(await gpucheck(sc.hosts));
      p.push(await pdsh(sc.pdshHosts, sc.hosts.length));
    } else {
      p.push(await pdsh(sc.pdshHosts, sc.hosts.length));
      g.push(await gpucheck(sc.hosts));
    }
  }
  const f = (x: number) => x.toFixed(3);
  const gRun = median(g.map((s) => s.allRunningS));
  const pRun = median(p.map((s) => s.allRunningS));
  const gOver = median(g.map((s) => s.totalS - SLEEP_S));
  const pOver = median(p.map((s) => s.totalS - SLEEP_S));
  rows.push(`| ${sc.name} | ${f(gRun)} | ${f(pRun)} | **${(gRun / pRun).toFixed(2)}×** | ${f(gOver)} | ${f(pOver)} | ${(gOver / pOver).toFixed(2)}× | ${f(cold.allRunningS)} |`);
  console.error(`${sc.name}: gpucheck all-running ${g.map((s) => f(s.allRunningS)).join(" ")}; pdsh ${p.map((s) => f(s.allRunningS)).join(" ")}`);
}

console.log(`ssh fan-out, median of ${REPS} alternating runs, gpucheck maxParallel ${FANOUT}, pdsh -f <host count>, seconds:\n`);
console.log("| hosts × 1 rank | gpucheck all running | pdsh all running | ratio | gpucheck overhead | pdsh overhead | ratio | gpucheck cold (staging) all running |");
console.log("|---|---|---|---|---|---|---|---|");
for (const r of rows) console.log(r);
console.log(
  `\npdsh: PDSH_SSH_ARGS='-F ${CONFIG} -o BatchMode=yes -l%u %h' ${pdshArgv("<hosts>", 0).slice(0, -1).join(" ").replace("-f 0", "-f <host count>")} "${PY} -c '${CODE}'"`,
);
