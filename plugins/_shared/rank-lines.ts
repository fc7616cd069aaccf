// What the core reads in a rank's lines, whatever platform carried them: the launcher's `[rank N] `
// prefix, the workload's one-line error, and the launcher's report of the rank that failed.

/** gpucheck_workload.launch writes each rank's lines as `[rank N] <line>` so one stream carries a node's ranks. */
const RANK_PREFIX = /^\[rank (\d+)\] ?(.*)$/;

/**
 * The rank a line of a process belongs to and its text without the prefix. A process running one
 * rank speaks for it; a launcher's line names its rank, and one it did not prefix (its own verdict,
 * a Python error before any rank started) belongs to its first rank, as does a prefix naming a rank
 * it does not run.
 */
export function rankOfLine(line: string, ranks: readonly number[], prefixed: boolean): [number, string] {
  const first = ranks[0] ?? 0;
  if (!prefixed) return [first, line];
  const m = RANK_PREFIX.exec(line);
  if (!m) return [first, line];
  const rank = Number(m[1]);
  return ranks.length === 0 || ranks.includes(rank) ? [rank, m[2]!] : [first, line];
}

/** workload/gpucheck_workload/errors.py PREFIX: the workload's own one-line explanation of why it ended. */
export const WORKLOAD_ERROR = "gpucheck-workload: error: ";

/** The workload's own explanation in one line of a rank's output, if it is one. */
export function workloadError(line: string): string | undefined {
  return line.startsWith(WORKLOAD_ERROR) ? line.slice(WORKLOAD_ERROR.length) : undefined;
}

/** The workload's last explanation in a rank's text, when it gave one. */
export function lastWorkloadError(text: string): string | undefined {
  let found: string | undefined;
  for (const line of text.split("\n")) found = workloadError(line.replace(/\r$/, "")) ?? found;
  return found;
}

/** gpucheck_workload.launch: `gpucheck-launch: rank 3 exited with 5` names the first rank that failed. */
const LAUNCH_FAILURE = /^gpucheck-launch: rank (\d+) exited with (-?\d+)$/;

/** The launcher's last report of a failed rank in these lines. */
export function launchFailure(lines: readonly string[]): { rank: number; code: number } | undefined {
  for (let i = lines.length - 1; i >= 0; i--) {
    const m = LAUNCH_FAILURE.exec(lines[i]!);
    if (m) return { rank: Number(m[1]), code: Number(m[2]) };
  }
  return undefined;
}

/** How a process ended, as messages say it. */
export function exitHow(code: number | null, signal?: string | null): string {
  return code === null ? `signal ${signal ?? "unknown"}` : `exit code ${code}`;
}
