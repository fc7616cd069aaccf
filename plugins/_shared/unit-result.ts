// The one place that turns what happened to a unit into its UnitRun and message. Platforms report
// facts (how it was stopped, what infrastructure failed, which process failed first and how, or a
// scheduler's own verdict); the precedence between them and the wording live here.
import { type StopReason, stopMessage } from "../../lib/core/stop.ts";
import type { RankLog, UnitRun, UnitStatus } from "../../lib/core/types.ts";

export { type StopReason, stopMessage, stopReason } from "../../lib/core/stop.ts";

/** The first process that failed: "rank 2 on node1 failed with exit code 3: <the workload's reason> (job 22)". */
export interface Failure {
  /** "rank 2", "mpirun", "container" */
  who: string;
  /** where it ran: a host name, "node gpu-1 (pod …)" */
  on?: string;
  /** "failed with exit code 3", "exited with 137 (OOMKilled)" */
  how: string;
  /** the workload's own explanation (its `gpucheck-workload: error:` line) */
  reason?: string;
  /** what the platform adds: "job 22" */
  note?: string;
}

export function failureMessage(f: Failure): string {
  return `${f.who}${f.on ? ` on ${f.on}` : ""} ${f.how}${f.reason ? `: ${f.reason}` : ""}${f.note ? ` (${f.note})` : ""}`;
}

export interface UnitFacts {
  unit: string;
  hosts: string[];
  /** ISO time or epoch ms */
  startedAt: string | number;
  endedAt?: string | number;
  ranks?: RankLog[];
  output?: string;
  tail?: string;
  /** the run's signal aborted: timeout or Ctrl-C, with what was stopped ("killed rank 0 (pid 12)") */
  stopped?: { by: StopReason; timeoutMs: number; what?: string };
  /** infrastructure that failed (a host unreachable, an engine refusing a container), in order; present means infra */
  infra?: string[];
  /** with infra: the hosts that stopped answering (unreachable, a connection lost mid-run), by name */
  lost?: string[];
  /** the first process that failed on its own */
  failed?: Failure;
  /** a verdict decided from a scheduler's states (Slurm job states, pod phases), which knows best */
  decided?: { status: UnitStatus; message?: string };
  /** what could not be cleaned up, appended to any message ("could not reach host h to stop rank 3") */
  also?: string[];
}

const iso = (t: string | number | undefined) => (t === undefined ? new Date().toISOString() : typeof t === "number" ? new Date(t).toISOString() : t);

/** Stopped before anything else; then infrastructure; then the first failing process; then the scheduler's word. */
export function unitResult(f: UnitFacts): UnitRun {
  let status: UnitStatus = "completed";
  let message: string | undefined;
  if (f.stopped) {
    status = f.stopped.by;
    message = stopMessage(f.stopped.by, f.stopped.timeoutMs, f.stopped.what);
  } else if (f.infra) {
    status = "infra";
    message = f.infra.join("; ");
  } else if (f.failed) {
    status = "failed";
    message = failureMessage(f.failed);
  } else if (f.decided) {
    status = f.decided.status;
    message = f.decided.message;
  }
  if (message !== undefined && f.also?.length) message += `; ${f.also.join("; ")}`;
  return {
    unit: f.unit,
    hosts: f.hosts,
    status,
    ...(message ? { message } : {}),
    startedAt: iso(f.startedAt),
    endedAt: iso(f.endedAt),
    ranks: f.ranks ?? [],
    output: f.output ?? "",
    tail: f.tail ?? "",
    ...(status === "infra" && f.lost?.length ? { lost: f.lost } : {}),
  };
}

/** A unit's result passed on as it ends, told to the progress first: 1,000 nodes stream, not wait for the last. */
export function ended(ctx: { unitEnded?(run: UnitRun): void }, run: UnitRun): UnitRun {
  ctx.unitEnded?.(run);
  return run;
}
