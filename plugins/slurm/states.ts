// Slurm job states → what gpucheck reports. The names are Slurm's (squeue %T, scontrol JobState,
// sacct State); sacct adds detail ("CANCELLED by 0") and old versions abbreviate in some outputs.
import type { UnitStatus } from "../../lib/core/types.ts";

export type Phase = "pending" | "running" | "ended";

const PENDING = new Set(["PENDING", "REQUEUED", "REQUEUE_HOLD", "REQUEUE_FED", "RESV_DEL_HOLD", "SUSPENDED", "STOPPED"]);
const RUNNING = new Set(["RUNNING", "CONFIGURING", "COMPLETING", "RESIZING", "SIGNALING", "STAGE_OUT", "POWER_UP_NODE"]);

/** How a job that ended maps to a unit, and the words for the message. */
const ENDED: Record<string, { status: UnitStatus; what: string }> = {
  COMPLETED: { status: "completed", what: "completed" },
  FAILED: { status: "failed", what: "failed" },
  OUT_OF_MEMORY: { status: "failed", what: "ran out of memory (OUT_OF_MEMORY)" },
  SPECIAL_EXIT: { status: "failed", what: "ended with a special exit (SPECIAL_EXIT)" },
  TIMEOUT: { status: "timeout", what: "hit its Slurm time limit (TIMEOUT)" },
  DEADLINE: { status: "timeout", what: "passed its deadline (DEADLINE)" },
  CANCELLED: { status: "infra", what: "was cancelled outside gpucheck (CANCELLED)" },
  NODE_FAIL: { status: "infra", what: "lost a node (NODE_FAIL)" },
  BOOT_FAIL: { status: "infra", what: "could not boot its nodes (BOOT_FAIL)" },
  PREEMPTED: { status: "infra", what: "was preempted (PREEMPTED)" },
  REVOKED: { status: "infra", what: "was revoked by the federation (REVOKED)" },
};

/** "CANCELLED by 1000" → "CANCELLED"; "cancelled+" → "CANCELLED". */
export function baseState(state: string): string {
  return state.trim().split(/[\s+]/)[0]!.toUpperCase();
}

export function phaseOf(state: string): Phase {
  const s = baseState(state);
  if (PENDING.has(s)) return "pending";
  if (RUNNING.has(s)) return "running";
  // an unknown name is treated as still running: the queue timeout and the test deadline bound it
  return s in ENDED ? "ended" : "running";
}

/** The unit status for a job that ended in `state`; a cancel gpucheck asked for is not an infra problem. */
export function endedStatus(state: string, cancelledBy?: "timeout" | "cancelled"): { status: UnitStatus; what: string } {
  const s = baseState(state);
  if (s === "CANCELLED" && cancelledBy) return { status: cancelledBy, what: cancelledBy === "timeout" ? "was cancelled at the test's timeout" : "was cancelled" };
  return ENDED[s] ?? { status: "infra", what: `ended in an unknown state ${JSON.stringify(state)}` };
}
