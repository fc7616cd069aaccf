// `gpucheck parse nccl` on large NCCL_DEBUG=INFO logs: throughput and peak memory at two sizes.
// Memory must not grow with the log (the CLI streams it), throughput should be ≥ 100 MB/s.
//
//   node_modules/.bin/bun bench/parse-nccl.ts [--runs 5] [--sizes 10,100] [--bin compiled/gpucheck]
//
// The logs are generated into /tmp (never committed): an 8-rank all_reduce sweep of 32 sizes whose
// rows are buried in NCCL INFO lines (NCCL_DEBUG_SUBSYS=COLL prints one per call), some of them glued
// into the middle of rows as NCCL does. Each run's output is checked (32 rows, complete) so a fast
// wrong answer cannot pass. Baselines from the same run: `wc -l` on the same file (a bare line scan)
// and `--version` (process start-up, included in every parse figure).
import { spawnSync } from "node:child_process";
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync, statSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const arg = (name: string, dflt: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1]! : dflt;
};
const root = join(import.meta.dir, "..");
const runs = Number(arg("runs", "5"));
const sizesMB = arg("sizes", "10,100").split(",").map(Number);
const compiled = join(root, "compiled", "gpucheck");
const bin = arg("bin", existsSync(compiled) ? compiled : "");
const cli = bin ? [bin] : [join(root, "node_modules", ".bin", "bun"), join(root, "mod.ts")];

const HOST = "gpu-a17";
const SIZES = Array.from({ length: 32 }, (_, i) => 8 * 2 ** i);

function noise(i: number): string {
  const rank = i % 8;
  const head = `${HOST}:${31337 + rank}:${31401 + rank} [${rank}] NCCL INFO `;
  switch (i % 4) {
    case 0:
      return `${head}AllReduce: opCount ${(i >>> 3).toString(16)} sendbuff 0x7f1e40000000 recvbuff 0x7f1e60000000 count 262144 datatype 7 op 0 root 0 comm 0x55d0c1a2b3c0 [nranks=8] stream 0x55d0c19f3a10`;
    case 1:
      return `${head}Channel ${String(i % 32).padStart(2, "0")}/32 : ${rank}[${rank}] -> ${(rank + 1) % 8}[${(rank + 1) % 8}] via P2P/CUMEM/read`;
    case 2:
      return `${head}8 coll channels, 8 collnet channels, 0 nvls channels, 8 p2p channels, 8 p2p channels per peer`;
    default:
      return `${head}NCCL_ALGO set by environment to Ring`;
  }
}

function row(size: number): [keys: string, oop: string, ip: string] {
  const us = 12 + size / 260e3;
  const alg = size / us / 1e3;
  const body = (t: number) => `  ${t.toFixed(2).padStart(7)}  ${alg.toFixed(2).padStart(6)}  ${(alg * 1.75).toFixed(2).padStart(6)}       0`;
  return [`${String(size).padStart(12)}  ${String(size / 4).padStart(12)}     float     sum      -1`, body(us), body(us * 0.99)];
}

/** Writes a log of about `bytes` bytes; returns its path. */
export function generate(dir: string, bytes: number): string {
  const path = join(dir, `nccl-info-${Math.round(bytes / 1e6)}MB.log`);
  const fd = openSync(path, "w");
  let buf: string[] = [];
  let pending = 0;
  let written = 0;
  const out = (line: string) => {
    buf.push(line);
    pending += line.length + 1;
    if (pending > 4 << 20) flush();
  };
  const flush = () => {
    written += writeSync(fd, `${buf.join("\n")}\n`);
    buf = [];
    pending = 0;
  };
  out("# nccl-tests version 2.19.6 nccl-headers=22703 nccl-library=22703");
  out("# Collective test starting: all_reduce_perf");
  out("# nThread 1 nGpus 1 minBytes 8 maxBytes 17179869184 step: 2(factor) warmup iters: 1 iters: 20 agg iters: 1 validation: 1 graph: 0 unalign: 0");
  out("#\n# Using devices");
  for (let r = 0; r < 8; r++)
    out(`#  Rank ${String(r).padStart(2)} Group  0 Pid ${31337 + r} on    ${HOST} device ${String(r).padStart(2)} [0000:${(0x18 + r * 16).toString(16)}:00] NVIDIA H100 80GB HBM3`);
  out("#\n#       size         count      type   redop    root     time   algbw   busbw  #wrong     time   algbw   busbw  #wrong");
  let n = 0;
  for (const [i, size] of SIZES.entries()) {
    while (written + pending < ((i + 1) / SIZES.length) * bytes) out(noise(n++));
    const [keys, oop, ip] = row(size);
    if (i % 4 === 0) {
      // NCCL writes to the same stdout while nccl-tests has printed half a row
      out(keys + noise(n++));
      out(oop + noise(n++));
      out(ip);
    } else {
      out(keys + oop + ip);
    }
  }
  out("# Out of bounds values : 0 OK\n# Avg bus bandwidth    : 123.456 \n#\n# Collective test concluded: all_reduce_perf\n#");
  flush();
  closeSync(fd);
  return path;
}

interface Sample {
  wallS: number;
  maxRssMB: number;
}

function measure(argv: string[], check?: (stdout: string) => void): Sample {
  const timeOut = join(tmpdir(), `gpucheck-bench-time-${process.pid}`);
  const t0 = performance.now();
  const p = spawnSync("/usr/bin/time", ["-f", "%M", "-o", timeOut, ...argv], { encoding: "utf8", maxBuffer: 64 << 20 });
  const wallS = (performance.now() - t0) / 1000;
  if (p.status !== 0) throw new Error(`${argv.join(" ")} exited ${p.status}: ${p.stderr}`);
  check?.(p.stdout);
  const maxRssMB = Number(readFileSync(timeOut, "utf8").trim()) / 1024;
  rmSync(timeOut);
  return { wallS, maxRssMB };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

function checkReport(stdout: string): void {
  const r = JSON.parse(stdout) as { rows: unknown[]; complete: boolean; ranks: number };
  if (r.rows.length !== SIZES.length || !r.complete || r.ranks !== 8) throw new Error(`wrong parse: ${r.rows.length} rows, complete ${r.complete}, ranks ${r.ranks}`);
}

if (import.meta.main) main();

function main(): void {
  const dir = mkdtempSync(join(tmpdir(), "gpucheck-bench-nccl-"));
  try {
    console.log(`cli: ${cli.join(" ")}\nruns per figure: ${runs}, medians; parse and \`wc -l\` runs alternate so load hits both\n`);
    const start = Array.from({ length: runs }, () => measure([...cli, "--version"]));
    console.log("| log | parse wall (s) | MB/s | peak RSS (MB) | `wc -l` wall (s) | parse / `wc -l` |");
    console.log("|---|---|---|---|---|---|");
    for (const mb of sizesMB) {
      const path = generate(dir, mb * 1e6);
      const size = statSync(path).size / 1e6;
      const parse: Sample[] = [];
      const ratios: number[] = [];
      const wc: number[] = [];
      for (let i = 0; i < runs; i++) {
        parse.push(measure([...cli, "parse", "nccl", path, "--json"], checkReport));
        wc.push(measure(["wc", "-l", path]).wallS);
        ratios.push(parse[i]!.wallS / wc[i]!);
      }
      const wall = median(parse.map((s) => s.wallS));
      console.log(
        `| ${size.toFixed(0)} MB | ${wall.toFixed(3)} | ${(size / wall).toFixed(0)} | ${median(parse.map((s) => s.maxRssMB)).toFixed(1)} | ${median(wc).toFixed(3)} | ${median(ratios).toFixed(1)}× |`,
      );
      rmSync(path);
    }
    const [startS, startRss] = [median(start.map((s) => s.wallS)), median(start.map((s) => s.maxRssMB))];
    console.log(`\n\`--version\` (start-up, included in every parse figure): ${startS.toFixed(3)} s, peak RSS ${startRss.toFixed(1)} MB`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
