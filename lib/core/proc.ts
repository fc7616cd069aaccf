// Child processes for platforms that launch commands themselves (local, ssh, slurm's CLI), and for
// the tools gpucheck runs where it runs (infiniband-diags for the fabric, lib/execute/fabric-tools.ts).
// Each child leads its own process group so that a timeout or Ctrl-C can kill everything it
// started (a rank's dataloader workers, an ssh client's children) with one signal.
import { spawn } from "node:child_process";
import { createWriteStream, type WriteStream } from "node:fs";
import { openPrivate } from "./private-fs.ts";

export interface ProcSpec {
  argv: string[];
  env?: Record<string, string>;
  cwd?: string;
  /** every line of stdout and stderr, as it arrives */
  onLine?: (line: string, stream: "stdout" | "stderr") => void;
  /** file that receives stdout and stderr interleaved, as the rank's log */
  logPath?: string;
  /** killing the group starts when this aborts */
  signal?: AbortSignal;
  /** ms between SIGTERM and SIGKILL */
  graceMs?: number;
  /** text (or bytes) for stdin, then it is closed (with holdStdin: then it is held open) */
  input?: string | Uint8Array;
  /** keep stdin an open pipe until the process ends: the child sees EOF only when this process or
   *  the child goes away (ssh forwards that EOF to the remote command, which uses it as a hangup) */
  holdStdin?: boolean;
  /** characters of each stream kept in memory, its tail (the log file has everything); 256 Ki unless said */
  keep?: number;
}

export interface ProcResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** true when the process was killed because `signal` aborted */
  killed: boolean;
  stdout: string;
  stderr: string;
  pid: number | undefined;
  /** spawn failure (ENOENT …) */
  spawnError?: string;
}

const KEEP = 256 * 1024; // keep the tail of each stream in memory; the log file has everything

export function runProc(spec: ProcSpec): Promise<ProcResult> {
  return new Promise((resolve) => {
    let log: WriteStream | undefined;
    if (spec.logPath) log = createWriteStream("", { fd: openPrivate(spec.logPath, "append") });
    const child = spawn(spec.argv[0]!, spec.argv.slice(1), {
      cwd: spec.cwd,
      env: spec.env ?? (process.env as Record<string, string>),
      detached: true,
      stdio: [spec.input === undefined && !spec.holdStdin ? "ignore" : "pipe", "pipe", "pipe"],
    });
    if (spec.input !== undefined) {
      if (spec.holdStdin) child.stdin?.write(spec.input);
      else child.stdin?.end(spec.input);
    }
    // a child that exits without reading all of stdin must not crash us with EPIPE
    child.stdin?.on("error", () => {});
    const out = { stdout: "", stderr: "" };
    let killed = false;
    let killTimer: ReturnType<typeof setTimeout> | undefined;

    const pump = (name: "stdout" | "stderr") => {
      let partial = "";
      child[name]!.setEncoding("utf8");
      child[name]!.on("data", (chunk: string) => {
        log?.write(chunk);
        const kept = out[name] + chunk;
        out[name] = kept.length > (spec.keep ?? KEEP) ? kept.slice(-(spec.keep ?? KEEP)) : kept;
        const parts = (partial + chunk).split("\n");
        partial = parts.pop()!;
        for (const l of parts) spec.onLine?.(l.replace(/\r$/, ""), name);
      });
      child[name]!.on("end", () => {
        if (partial) spec.onLine?.(partial, name);
      });
    };
    pump("stdout");
    pump("stderr");

    const kill = () => {
      if (killed || child.pid === undefined) return;
      killed = true;
      killGroup(child.pid, "SIGTERM");
      killTimer = setTimeout(() => killGroup(child.pid!, "SIGKILL"), spec.graceMs ?? 3000);
    };
    if (spec.signal?.aborted) queueMicrotask(kill);
    else spec.signal?.addEventListener("abort", kill, { once: true });

    let spawnError: string | undefined;
    child.on("error", (e) => {
      spawnError = `${spec.argv[0]}: ${(e as NodeJS.ErrnoException).code === "ENOENT" ? "command not found" : e.message}`;
    });
    child.on("close", (code, sig) => {
      clearTimeout(killTimer);
      spec.signal?.removeEventListener("abort", kill);
      // the leader is gone, but children it left in the group must not outlive the run
      if (child.pid !== undefined) killGroup(child.pid, "SIGKILL");
      const finish = () => resolve({ code, signal: sig, killed, ...out, pid: child.pid, spawnError });
      if (log) log.end(finish);
      else finish();
    });
  });
}

export function killGroup(pid: number, sig: NodeJS.Signals): boolean {
  try {
    process.kill(-pid, sig);
    return true;
  } catch {
    return false;
  }
}

/** Runs a short command and returns its output; for probes and scheduler CLIs. */
export async function capture(
  argv: string[],
  opts: { env?: Record<string, string>; signal?: AbortSignal; input?: string | Uint8Array; timeoutMs?: number; keep?: number } = {},
): Promise<ProcResult> {
  const signals = [opts.signal, opts.timeoutMs ? AbortSignal.timeout(opts.timeoutMs) : undefined].filter((s): s is AbortSignal => s !== undefined);
  return runProc({ argv, env: opts.env, input: opts.input, signal: signals.length ? AbortSignal.any(signals) : undefined, graceMs: 500, keep: opts.keep });
}
