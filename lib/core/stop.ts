// How a run was stopped, in the words every platform and the executor use.
export type StopReason = "timeout" | "cancelled";

/** Why the run's signal aborted: the executor aborts with "timeout" at the deadline, anything else is a cancel. */
export function stopReason(signal: AbortSignal): StopReason {
  return signal.reason === "timeout" ? "timeout" : "cancelled";
}

/** "timed out after 60s: killed rank 0 (pid 12)", "cancelled: stopped containers …" */
export function stopMessage(by: StopReason, timeoutMs: number, what?: string): string {
  return `${by === "timeout" ? `timed out after ${Math.round(timeoutMs / 1000)}s` : "cancelled"}${what ? `: ${what}` : ""}`;
}
