// Runs gpucheck as a user would. The integration tier runs the compiled binary it has just built
// (scripts/test-integration.sh sets GPUCHECK_TEST_BINARY); the unit tier runs the sources through
// Bun, so a compiled/gpucheck left from an older build never stands in for the code under test.
import { spawn, spawnSync, type SpawnSyncReturns } from "node:child_process";
import { join } from "node:path";
import { tempDir as tempDirWithPrefix } from "../tmp.ts";

const root = join(import.meta.dir, "..", "..");
const binary = process.env.GPUCHECK_TEST_BINARY;

export function gpucheckArgv(): string[] {
  return binary ? [binary] : [join(root, "node_modules", ".bin", "bun"), join(root, "mod.ts")];
}

export function gpucheck(args: string[], opts: { cwd?: string; env?: Record<string, string>; timeoutMs?: number } = {}): SpawnSyncReturns<string> {
  const [cmd, ...pre] = gpucheckArgv();
  return spawnSync(cmd!, [...pre, ...args], {
    cwd: opts.cwd ?? root,
    encoding: "utf8",
    env: { ...process.env, NO_COLOR: "1", ...opts.env },
    timeout: opts.timeoutMs ?? 300_000,
  });
}

/** Starts gpucheck in the background: for tests that interrupt it. */
export function gpucheckAsync(args: string[], opts: { cwd?: string; env?: Record<string, string> } = {}) {
  const [cmd, ...pre] = gpucheckArgv();
  const child = spawn(cmd!, [...pre, ...args], { cwd: opts.cwd ?? root, env: { ...process.env, NO_COLOR: "1", ...opts.env }, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  child.stdout.on("data", (d) => (out += d));
  child.stderr.on("data", (d) => (out += d));
  const exited = new Promise<number | null>((r) => child.on("close", (code) => r(code)));
  return { child, output: () => out, exited };
}

/** Resolves once the run's preflight passed: a fault injected from there is the tests', not the preflight's, to find. */
export async function preflightPassed(run: ReturnType<typeof gpucheckAsync>): Promise<void> {
  while (!/preflight: PASSED/.test(run.output())) {
    if (run.child.exitCode !== null) throw new Error(`gpucheck ended before its preflight passed:\n${run.output()}`);
    await Bun.sleep(100);
  }
}

export function tempDir(prefix: string): string {
  return tempDirWithPrefix(`gpucheck-${prefix}-`);
}

export const fixture = (name: string) => join(root, "test", "fixtures", "e2e", name);
