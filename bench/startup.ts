// Start-up of the commands that need no workload, against the floor: a hello-world built with the
// same `bun build --compile` flags as gpucheck (scripts/build.ts). Whole process, wall and CPU time
// (user + system from the child's rusage), median of N rounds; within a round every command of every
// binary and the hello-world run once each, in turn, so the machine's load falls on all of them alike.
//
//   node_modules/.bin/bun bench/startup.ts [--runs 10] [--bin compiled/gpucheck [--root <its source tree>]]...
//
// Several --bin are measured side by side (before and after a change); each --root (default: this
// tree) is the source tree the binary was built from, whose commands bench/startup-work.ts runs
// in-process to measure each command's own work (the warm run: no loading, no first use). The
// overhead is the process's CPU time less that work; the goal (issue 12) is overhead ≤ 1.5 × the
// floor's CPU time. `verify` runs on a certificate made before timing (keygen + certify on a copy of
// the signed-run fixture). Every run's exit code is checked, so a fast failure cannot pass.
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { COMPILE_FLAGS, X64_FLAGS } from "../scripts/compile-flags.ts";
import { median } from "./median.ts";

const root = join(import.meta.dir, "..");
const argsOf = (name: string) => process.argv.flatMap((a, i) => (a === `--${name}` ? [process.argv[i + 1]!] : []));
const runs = Number(argsOf("runs")[0] ?? "10");
const bins = argsOf("bin").map((b) => resolve(b));
if (bins.length === 0) bins.push(join(root, "compiled", "gpucheck"));
const roots = bins.map((_, i) => resolve(argsOf("root")[i] ?? root));
const work = mkdtempSync(join(tmpdir(), "gpucheck-startup-"));
// the floor binary alone is 100 MB: nothing stays behind, whatever the outcome
process.on("exit", () => rmSync(work, { recursive: true, force: true }));

function must(argv: string[], cwd = work): string {
  const p = Bun.spawnSync(argv, { cwd, stdout: "pipe", stderr: "pipe" });
  if (p.exitCode !== 0) throw new Error(`${argv.join(" ")} exited with ${p.exitCode}: ${p.stderr.toString()}`);
  return p.stdout.toString();
}

// the floor: the same flags as scripts/build.ts, nothing but a print
writeFileSync(join(work, "hello.ts"), 'console.log("hello");\n');
must([process.execPath, "build", ...COMPILE_FLAGS, ...X64_FLAGS, "hello.ts", "--outfile", "hello"]);

const run = join(work, "run");
cpSync(join(root, "test", "fixtures", "sign", "h100-2node-failing"), run, { recursive: true });
must([bins[0]!, "keygen", "--out", join(work, "keys")]);
must([bins[0]!, "certify", run, "--key", join(work, "keys", "gpucheck.key")]);
const cert = join(run, "certificate.intoto.json");
const pub = join(work, "keys", "gpucheck.pub");

const commands = (bin: string): Array<{ name: string; argv: string[] }> => [
  { name: "gpucheck --version", argv: [bin, "--version"] },
  { name: "gpucheck --help", argv: [bin, "--help"] },
  { name: "gpucheck list", argv: [bin, "list"] },
  { name: "gpucheck validate h100-8x", argv: [bin, "validate", "h100-8x"] },
  { name: "gpucheck plan h100-8x", argv: [bin, "plan", "h100-8x"] },
  { name: "gpucheck verify <cert> --key <pub>", argv: [bin, "verify", cert, "--key", pub] },
];
const cases = [{ name: "hello-world (floor)", argv: [join(work, "hello")] }, ...bins.flatMap(commands)];

const wall = cases.map(() => [] as number[]);
const cpu = cases.map(() => [] as number[]);
const load: number[] = [];
for (let r = 0; r < runs; r++) {
  load.push(loadavg()[0]!);
  cases.forEach((c, i) => {
    const t0 = Bun.nanoseconds();
    const p = Bun.spawnSync(c.argv, { cwd: work, stdout: "pipe", stderr: "pipe" });
    wall[i]!.push((Bun.nanoseconds() - t0) / 1e6);
    if (p.exitCode !== 0) throw new Error(`${c.argv.join(" ")} exited with ${p.exitCode}: ${p.stderr.toString()}`);
    cpu[i]!.push(Number(p.resourceUsage.cpuTime.total) / 1000);
  });
}
load.push(loadavg()[0]!);

/** Each command's own work, run in-process from the binary's source tree (bench/startup-work.ts). */
function ownWork(bin: string, tree: string, name: string): { cold: number; warm: number } {
  const help = join(work, "help.txt");
  writeFileSync(help, must([bin, "--help"]));
  const out = join(work, "work.json");
  const script = join(import.meta.dir, "startup-work.ts");
  const argv = [process.execPath, script, "--case", name, "--root", tree, "--runs", String(runs), "--cert", cert, "--key", pub, "--help-text", help, "--out", out];
  const p = Bun.spawnSync(argv, { cwd: work, stdout: "ignore", stderr: "pipe" });
  if (p.exitCode !== 0) throw new Error(`${argv.join(" ")} exited with ${p.exitCode}: ${p.stderr.toString()}`);
  return JSON.parse(readFileSync(out, "utf8"));
}

const floorWall = median(wall[0]!);
const floorCpu = median(cpu[0]!);
const f1 = (x: number) => x.toFixed(1);
console.log(`median of ${runs}, load average ${Math.min(...load).toFixed(1)}–${Math.max(...load).toFixed(1)} (1 min, at each round's start and the end)`);
console.log(`floor (hello-world): wall ${f1(floorWall)} ms, CPU ${f1(floorCpu)} ms`);
bins.forEach((bin, b) => {
  console.log(`\n${bin} (sources: ${roots[b]})`);
  console.log("| command | wall (ms) | CPU (ms) | CPU × floor | own work, warm (cold) (ms) | overhead: CPU − own work (ms) | overhead ÷ floor CPU | within 1.5× |");
  console.log("|---|---:|---:|---:|---:|---:|---:|:---:|");
  commands(bin).forEach((c, j) => {
    const i = 1 + b * commands(bin).length + j;
    const u = median(cpu[i]!);
    const w = ownWork(bin, roots[b]!, c.name);
    const over = u - w.warm;
    const ratio = over / floorCpu;
    console.log(
      `| \`${c.name}\` | ${f1(median(wall[i]!))} | ${f1(u)} | ${(u / floorCpu).toFixed(2)} | ${w.warm.toFixed(2)} (${f1(w.cold)}) | ${f1(over)} | ${ratio.toFixed(2)} | ${ratio <= 1.5 ? "yes" : "no"} |`,
    );
  });
});
