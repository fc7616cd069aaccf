// The one door to the scheduler: every sbatch/squeue/sacct/scontrol/sinfo/scancel call goes
// through a SlurmIo, so tests can replay captured output and count calls, and the real thing
// is a plain subprocess (no shell: arguments arrive as given).
import { CommandError } from "../../lib/core/errors.ts";
import { runProc } from "../../lib/core/proc.ts";

export interface IoResult {
  code: number | null;
  stdout: string;
  stderr: string;
  spawnError?: string;
}

export interface SlurmIo {
  /** env: variables added to this environment for the command (the test's secrets, for sbatch) */
  exec(argv: string[], opts?: { cwd?: string; timeoutMs?: number; env?: Record<string, string> }): Promise<IoResult>;
}

/** Scheduler commands answer in well under a second; a minute means slurmctld is unreachable. */
const DEFAULT_TIMEOUT_MS = 60_000;

export const systemIo: SlurmIo = {
  async exec(argv, opts = {}) {
    const r = await runProc({
      argv,
      cwd: opts.cwd,
      ...(opts.env && { env: { ...(process.env as Record<string, string>), ...opts.env } }),
      signal: AbortSignal.timeout(opts.timeoutMs ?? DEFAULT_TIMEOUT_MS),
      graceMs: 1000,
    });
    const timedOut = r.killed ? `${argv[0]}: no answer within ${Math.round((opts.timeoutMs ?? DEFAULT_TIMEOUT_MS) / 1000)} s` : undefined;
    return { code: r.code, stdout: r.stdout, stderr: r.stderr, spawnError: r.spawnError ?? timedOut };
  },
};

/** Runs a command that must succeed; its stdout, or a CommandError carrying argv and stderr. */
export async function must(io: SlurmIo, argv: string[], opts?: { cwd?: string; timeoutMs?: number }): Promise<string> {
  const r = await io.exec(argv, opts);
  if (r.spawnError) throw new CommandError(argv, null, r.spawnError);
  if (r.code !== 0) throw new CommandError(argv, r.code, r.stderr || r.stdout);
  return r.stdout;
}
