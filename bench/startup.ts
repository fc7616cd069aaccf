// Start-up of the commands that need no workload, against the floor: a hello-world built with the
// same `bun build --compile` flags as gpucheck (scripts/build.ts). Whole process, wall and CPU time
// (user + system from the child's rusage), median of N rounds; within a round every command and the
// hello-world run once each, in turn, so the machine's load falls on all of them alike.
//
//   node_modules/.bin/bun bench/startup.ts [--runs 10] [--bin compiled/gpucheck]
//
// `verify` runs on a certificate made before timing (keygen + certify on a copy of the signed-run
// fixture). Every run's exit code is checked, so a fast failure cannot pass.
import { cpSync, mkdtempSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";

const arg = (name: string, dflt: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1]! : dflt;
};
const root = join(import.meta.dir, "..");
const runs = Number(arg("runs", "10"));
const bin = arg("bin", join(root, "compiled", "gpucheck"));
const work = mkdtempSync(join(tmpdir(), "gpucheck-startup-"));

function must(argv: string[], cwd = work): string {
  const p = Bun.spawnSync(argv, { cwd, stdout: "pipe", stderr: "pipe" });
  if (p.exitCode !== 0) throw new Error(`${argv.join(" ")} exited with ${p.exitCode}: ${p.stderr.toString()}`);
  return p.stdout.toString();
}

// the floor: the same flags as scripts/build.ts, nothing but a print
writeFileSync(join(work, "hello.ts"), 'console.log("hello");\n');
must([process.execPath, "build", "--compile", "--minify", "--sourcemap=none", "--target", "bun-linux-x64", "--bytecode", "hello.ts", "--outfile", "hello"]);

const run = join(work, "run");
cpSync(join(root, "test", "fixtures", "sign", "h100-2node-failing"), run, { recursive: true });
must([bin, "keygen", "--out", join(work, "keys")]);
must([bin, "certify", run, "--key", join(work, "keys", "gpucheck.key")]);

const cases: Array<{ name: string; argv: string[] }> = [
  { name: "hello-world (floor)", argv: [join(work, "hello")] },
  { name: "gpucheck --version", argv: [bin, "--version"] },
  { name: "gpucheck --help", argv: [bin, "--help"] },
  { name: "gpucheck list", argv: [bin, "list"] },
  { name: "gpucheck validate h100-8x", argv: [bin, "validate", "h100-8x"] },
  { name: "gpucheck plan h100-8x", argv: [bin, "plan", "h100-8x"] },
  { name: "gpucheck verify <cert> --key <pub>", argv: [bin, "verify", join(run, "certificate.intoto.json"), "--key", join(work, "keys", "gpucheck.pub")] },
];

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

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

const floorWall = median(wall[0]!);
const floorCpu = median(cpu[0]!);
console.log(`${bin}, median of ${runs}, load average ${Math.min(...load).toFixed(1)}–${Math.max(...load).toFixed(1)}`);
console.log("| command | wall (ms) | × floor | CPU (ms) | × floor |");
console.log("|---|---:|---:|---:|---:|");
cases.forEach((c, i) => {
  const w = median(wall[i]!);
  const u = median(cpu[i]!);
  console.log(`| \`${c.name}\` | ${w.toFixed(1)} | ${(w / floorWall).toFixed(2)} | ${u.toFixed(1)} | ${(u / floorCpu).toFixed(2)} |`);
});
