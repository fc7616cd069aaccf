// One remote rank (or launcher) through one local ssh client: its output goes line by line to
// the rank logs and the console, and the wrapper's sentinel lines (start <pgid>, exit <code>) are
// taken out of the stream. An ssh that ends without the exit sentinel lost its connection.
import { createWriteStream, type WriteStream } from "node:fs";
import { join } from "node:path";
import { runProc } from "../_proc.ts";
import { rankArgv, type SshTarget } from "./argv.ts";
import type { RemoteProc } from "./layout.ts";
import { sentinel, type StagePaths } from "./scripts.ts";

export interface ProcOutcome {
  /** the remote command's exit code, from the exit sentinel; null when it never reported one */
  exitCode: number | null;
  started: boolean;
  /** ssh's own exit code */
  sshCode: number | null;
  /** the local ssh was killed by us */
  killed: boolean;
  stderrTail: string;
  spawnError?: string;
}

export interface ProcIo {
  target: SshTarget;
  stage: StagePaths;
  runId: string;
  /** rank logs go to <logDir>/rank-<N>.log */
  logDir: string;
  /** every output line (sentinels removed), with the rank it belongs to */
  line(rank: number, text: string): void;
  /** the remote process is running (its pgid is on record there) */
  started(): void;
  signal: AbortSignal;
}

export const rankLog = (dir: string, rank: number) => join(dir, `rank-${rank}.log`);

/** gpucheck_workload.launch prefixes each rank's lines; other processes speak for their first rank. */
function router(p: RemoteProc): (line: string) => [number, string] {
  if (p.ranks.length === 1 || !p.argv.includes("gpucheck_workload.launch")) return (line) => [p.id, line];
  return (line) => {
    const m = /^\[rank (\d+)\] ?(.*)$/.exec(line);
    return m && p.ranks.includes(Number(m[1])) ? [Number(m[1]), m[2]!] : [p.id, line];
  };
}

export async function runRemoteProc(p: RemoteProc, io: ProcIo): Promise<ProcOutcome> {
  const logs = new Map<number, WriteStream>();
  const route = router(p);
  const emit = (raw: string) => {
    const [rank, text] = route(raw);
    if (!logs.has(rank)) logs.set(rank, createWriteStream(rankLog(io.logDir, rank), { flags: "a" }));
    logs.get(rank)!.write(`${text}\n`);
    io.line(rank, text);
  };
  const mark = sentinel(io.runId);
  let exitCode: number | null = null;
  let started = false;
  const res = await runProc({
    argv: rankArgv(p, io.target, io.stage, io.runId),
    holdStdin: true,
    signal: io.signal,
    graceMs: 1000,
    onLine: (text, stream) => {
      const at = stream === "stderr" ? text.indexOf(mark) : -1;
      if (at < 0) return emit(text);
      // a rank's last line without a newline ends right before the sentinel
      if (at > 0) emit(text.slice(0, at));
      const [what, value] = text.slice(at + mark.length).split(" ");
      if (what === "start") {
        started = true;
        io.started();
      } else if (what === "exit") exitCode = Number(value);
    },
  });
  await Promise.all([...logs.values()].map((w) => new Promise<void>((resolve) => w.end(resolve))));
  const stderrTail = res.stderr.split("\n").filter((l) => !l.includes(mark)).slice(-3).join("\n");
  return { exitCode, started, sshCode: res.code, killed: res.killed, stderrTail, ...(res.spawnError ? { spawnError: res.spawnError } : {}) };
}
