// The `bun build --compile` flags of the release binary, shared by scripts/build.ts and the start-up
// benchmarks' floor and probes (bench/startup.ts, bench/startup-probe.ts), so that a hello-world
// built with them is the floor gpucheck is measured against.

/** Every target. */
export const COMPILE_FLAGS = [
  "--compile",
  "--minify",
  "--sourcemap=none",
  // ESM with code splitting: each command's dynamic import() becomes its own chunk inside the
  // binary, loaded when that command runs; one CommonJS bundle made every start parse all of it
  // (kubernetes client, dockerode, zod …): `--version` took 4.8× a hello-world (BENCHMARKS.md)
  "--format",
  "esm",
  "--splitting",
  // A standalone executable reads .env and bunfig.toml from the working directory by default: a
  // .env lying in a user's project directory (CUDA_VISIBLE_DEVICES, NCCL_IB_HCA, KUBECONFIG …) would
  // then reach every rank the local platform starts and change what is tested, unseen
  "--no-compile-autoload-dotenv",
  "--no-compile-autoload-bunfig",
  // JavaScriptCore's tier-up thresholds × 100 at start: a short command's code runs once and the
  // JIT's compiles cost more than they save (a third of `validate`'s CPU, BENCHMARKS.md); commands
  // that run for long put the normal policy back first (cli/run-command.ts)
  "--compile-jit-policy",
  "100",
];

/** The x64 release target: bytecode compiled ahead (cross-compiled arm64 does without). */
export const X64_FLAGS = ["--target", "bun-linux-x64", "--bytecode"];
