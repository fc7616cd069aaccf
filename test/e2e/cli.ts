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

export interface Ran {
  status: number | null;
  stdout: string;
  stderr: string;
}

let turn: Promise<unknown> = Promise.resolve();
/**
 * gpucheck with these arguments, as gpucheck() answers, for a test about what a command prints and
 * exits with. In the unit tier the command runs in this process (mod.ts's dispatch, its output
 * captured, in cwd, with the environment given and process.argv as a user's), one call at a time:
 * a process start per case cost about 0.3 CPU-s, most of the unit tier's CPU time. With
 * GPUCHECK_TEST_BINARY it runs the binary. Not for --version or --help alone (mod.ts answers those
 * before dispatch), nor for a command that reads standard input.
 */
export function gpucheckRun(args: string[], opts: { cwd?: string; env?: Record<string, string> } = {}): Promise<Ran> {
  const run = turn.then(() => (binary ? spawned(args, opts) : inProcess(args, opts)));
  turn = run.catch(() => {});
  return run;
}

async function spawned(args: string[], opts: { cwd?: string; env?: Record<string, string> }): Promise<Ran> {
  const p = Bun.spawn([...gpucheckArgv(), ...args], { cwd: opts.cwd ?? root, env: { ...process.env, NO_COLOR: "1", ...opts.env }, stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr, status] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
  return { status, stdout, stderr };
}

async function inProcess(args: string[], opts: { cwd?: string; env?: Record<string, string> }): Promise<Ran> {
  if (args.length === 1 && ["--version", "-V", "--help", "-h"].includes(args[0]!)) throw new Error(`gpucheckRun: ${args[0]} alone is mod.ts's to answer: use gpucheck()`);
  const { dispatch } = await import("../../cli/dispatch.ts");
  const { reportFatal } = await import("../../cli/commands/fatal.ts");
  const { captureOutput } = await import("../../cli/output.ts");
  const env: Record<string, string> = { NO_COLOR: "1", ...opts.env };
  const saved = { cwd: process.cwd(), argv: process.argv, exitCode: process.exitCode, env: Object.keys(env).map((k) => [k, process.env[k]] as const) };
  // a spawned command's standard output and error are pipes, never a terminal
  const tty = [process.stdout, process.stderr].map((s) => Object.getOwnPropertyDescriptor(s, "isTTY"));
  let stdout = "";
  let stderr = "";
  captureOutput((fd, text) => {
    if (fd === 1) stdout += text;
    else stderr += text;
  });
  try {
    for (const s of [process.stdout, process.stderr]) Object.defineProperty(s, "isTTY", { value: false, configurable: true, writable: true });
    Object.assign(process.env, env);
    process.chdir(opts.cwd ?? root);
    process.argv = [process.argv[0]!, join(root, "mod.ts"), ...args];
    process.exitCode = 0;
    const status = await dispatch(args).catch(reportFatal);
    return { status, stdout, stderr };
  } finally {
    captureOutput(undefined);
    [process.stdout, process.stderr].forEach((s, i) => (tty[i] ? Object.defineProperty(s, "isTTY", tty[i]!) : delete (s as { isTTY?: boolean }).isTTY));
    for (const [k, v] of saved.env) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
    process.chdir(saved.cwd);
    process.argv = saved.argv;
    // Bun keeps a code it was given when handed undefined: 0 is what a test process that set none exits with
    process.exitCode = saved.exitCode ?? 0;
  }
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
