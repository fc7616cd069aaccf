// One remote rank (or launcher) through one local ssh client: its output goes line by line to the
// unit's log (which routes a launcher's lines to its ranks), and the wrapper's sentinel lines
// (start <pgid>, exit <code>) are taken out of the stream. An ssh that ends without the exit
// sentinel lost its connection.
import { runProc } from "../../lib/core/proc.ts";
import type { SshTarget } from "../_shared/ssh/argv.ts";
import type { RemoteProc } from "./layout.ts";
import { sentinel, type StagePaths } from "../_shared/ssh/scripts.ts";

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
  /** the exact local ssh command: the rendered manifest's, with the run's slots bound */
  argv: string[];
  target: SshTarget;
  stage: StagePaths;
  runId: string;
  /** written first on the ssh's stdin, which then stays open as the remote watchdog's channel: the suite's env (scripts.ts envBlock) */
  stdin?: string;
  /** every output line (sentinels removed) */
  line(text: string): void;
  /** a stdout line: true when it was the first command's own check (taken out of the stream) */
  preamble?(text: string): boolean;
  /** the remote process is running (its pgid is on record there) */
  started(): void;
  signal: AbortSignal;
}

export async function runRemoteProc(_p: RemoteProc, io: ProcIo): Promise<ProcOutcome> {
  const emit = io.line;
  const mark = sentinel(io.runId);
  let exitCode: number | null = null;
  let started = false;
  const res = await runProc({
    argv: io.argv,
    holdStdin: true,
    ...(io.stdin !== undefined && { input: io.stdin }),
    signal: io.signal,
    graceMs: 1000,
    onLine: (text, stream) => {
      const at = stream === "stderr" ? text.indexOf(mark) : -1;
      // stdout and stderr are two pipes: the checks' last lines may come after the start sentinel
      if (at < 0) return stream === "stdout" && io.preamble?.(text) ? undefined : emit(text);
      // a rank's last line without a newline ends right before the sentinel
      if (at > 0) emit(text.slice(0, at));
      const [what, value] = text.slice(at + mark.length).split(" ");
      if (what === "start") {
        started = true;
        io.started();
      } else if (what === "exit") exitCode = Number(value);
    },
  });
  const stderrTail = res.stderr
    .split("\n")
    .filter((l) => !l.includes(mark))
    .slice(-3)
    .join("\n");
  return { exitCode, started, sshCode: res.code, killed: res.killed, stderrTail, ...(res.spawnError ? { spawnError: res.spawnError } : {}) };
}
