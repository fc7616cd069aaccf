// npm run build: compiled/gpucheck (linux-x64) and compiled/gpucheck-linux-arm64, each one file
// with the built-in suites and the workload embedded. The arm64 runtime comes from the npm
// package @oven/bun-linux-aarch64 (installed by `npm ci`), so nothing is downloaded here.
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { COMPILE_FLAGS, X64_FLAGS } from "./compile-flags.ts";
import { renderAssets } from "./gen-assets.ts";

const root = join(import.meta.dir, "..");
const bun = process.execPath;
writeFileSync(join(root, "lib", "core", "assets.gen.ts"), renderAssets());
// what start-up reads instead of computing it: `gpucheck list` (from the suites just embedded, so
// each generator runs in a process of its own), `--help` in a pipe, the shapes verify checks, the
// built-in suites' data; and results.json's types (type-only, for the type check)
for (const gen of ["gen-list.ts", "gen-help.ts", "gen-shapes.ts", "gen-suite-data.ts", "gen-results-types.ts"]) {
  const p = Bun.spawnSync([bun, join(root, "scripts", gen)], { cwd: root, stdout: "inherit", stderr: "inherit" });
  if (p.exitCode !== 0) {
    console.error(`build: scripts/${gen} failed with ${p.exitCode}`);
    process.exit(1);
  }
}
mkdirSync(join(root, "compiled"), { recursive: true });

const arm64Runtime = join(root, "node_modules", "@oven", "bun-linux-aarch64", "bin", "bun");
const targets: Array<{ out: string; args: string[] }> = [
  { out: "compiled/gpucheck", args: X64_FLAGS },
  {
    out: "compiled/gpucheck-linux-arm64",
    args: ["--target", "bun-linux-arm64", "--compile-executable-path", arm64Runtime],
  },
];
if (!existsSync(arm64Runtime)) {
  console.error(`build: ${arm64Runtime} is missing: run \`npm ci\` (package-lock.json installs it on every CPU)`);
  process.exit(2);
}
const only = process.argv[2];
// --version names the commit and the build time (a working tree with changes is marked -dirty)
const git = (...args: string[]) =>
  Bun.spawnSync(["git", ...args], { cwd: root })
    .stdout.toString()
    .trim();
const commit = git("rev-parse", "--short=12", "HEAD") || "unknown";
const dirty = git("status", "--porcelain", "--untracked-files=no") ? "-dirty" : "";
const built = new Date().toISOString().replace(/\.\d+Z$/, "Z");
// the hash of the workload as embedded, by the function the binary would otherwise run on every plan
// and run (lib/core/assets.ts), in a process that imports the files as they are on disk now
const hashed = Bun.spawnSync([bun, "-e", 'import { workloadHash } from "./lib/core/assets.ts"; process.stdout.write(workloadHash())'], { cwd: root, stderr: "inherit" });
const workloadHash = hashed.stdout.toString();
if (hashed.exitCode !== 0 || !/^[0-9a-f]{16}$/.test(workloadHash)) {
  console.error(`build: hashing the workload failed (exit ${hashed.exitCode}): ${JSON.stringify(workloadHash)}`);
  process.exit(1);
}
const defines = [
  ...["--define", `GPUCHECK_COMMIT=${JSON.stringify(commit + dirty)}`],
  ...["--define", `GPUCHECK_BUILT=${JSON.stringify(built)}`],
  ...["--define", `GPUCHECK_WORKLOAD_HASH=${JSON.stringify(workloadHash)}`],
];
for (const t of targets) {
  if (only && !t.out.endsWith(only)) continue;
  // ssh2 (under dockerode) loads two optional native addons in try/catch and falls back to pure JS;
  // embedded, Bun writes each to $TMPDIR/.bun-*.node on every run that loads them and never removes
  // them, which litters a user's /tmp. Left external they are simply absent: nothing is written.
  const natives = ["--external", "cpu-features", "--external", "*.node"];
  const argv = [bun, "build", ...COMPILE_FLAGS, ...natives, ...defines, ...t.args, "mod.ts", "--outfile", t.out];
  const p = Bun.spawnSync(argv, { cwd: root, stdout: "inherit", stderr: "inherit" });
  if (p.exitCode !== 0) {
    console.error(`build: ${argv.join(" ")} failed with ${p.exitCode}`);
    process.exit(1);
  }
}
