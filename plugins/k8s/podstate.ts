// Pod objects → what they mean for the test. Pure, so every state a cluster can show (Unschedulable,
// ImagePullBackOff, OOMKilled, a node that vanished) is tested with plain objects.
import type { V1Pod } from "@kubernetes/client-node";
import type { UnitStatus } from "../../lib/core/types.ts";

export interface PodView {
  name: string;
  node?: string;
  phase: string;
  /** the node rank this pod's ranks start at ×ranksPerNode; null for helpers (MPI workers) */
  nodeRank: number | null;
  /** logs + verdict come from it (rank pods, the MPI launcher); helpers only need to stay up */
  role: "ranks" | "helper";
  started: boolean;
  terminated?: { exitCode: number; reason?: string; message?: string };
  waiting?: { reason: string; message?: string };
  /** PodScheduled=False: the scheduler's explanation */
  unschedulable?: string;
  /** status.reason/message of a pod that failed as a whole (Evicted, NodeLost, OutOfnvidia.com/gpu …) */
  podFailure?: string;
  /** DisruptionTarget: the pod is being deleted by the system (node gone, preemption, eviction) */
  disruption?: string;
  deleted: boolean;
}

/** waiting reasons that do not clear up by waiting longer */
const FATAL_WAITING = new Set([
  "ImagePullBackOff",
  "InvalidImageName",
  "ErrImageNeverPull",
  "CreateContainerConfigError",
  "CreateContainerError",
  "RunContainerError",
  "CrashLoopBackOff",
]);
/** terminations that mean the container never ran the workload */
const NOT_STARTED = new Set(["ContainerCannotRun", "StartError"]);

export function viewOf(pod: V1Pod, containerName: string, deleted = false): PodView {
  const st = pod.status ?? {};
  const cs = [...(st.initContainerStatuses ?? []).filter((c) => c.state?.terminated?.exitCode !== 0), ...(st.containerStatuses ?? []).filter((c) => c.name === containerName)][0];
  const term = cs?.state?.terminated;
  const wait = cs?.state?.waiting;
  const cond = (type: string) => (st.conditions ?? []).find((c) => c.type === type);
  const sched = cond("PodScheduled");
  const disr = cond("DisruptionTarget");
  const labels = pod.metadata?.labels ?? {};
  const annotations = pod.metadata?.annotations ?? {};
  // mpi-operator v2 marks its pods with job-role launcher|worker (no replica-type)
  const helper = labels["training.kubeflow.org/operator-name"] === "mpi-operator" && labels["training.kubeflow.org/job-role"] === "worker";
  return {
    name: pod.metadata?.name ?? "?",
    node: pod.spec?.nodeName,
    phase: st.phase ?? "Pending",
    nodeRank: helper ? null : nodeRankOf(labels, annotations),
    role: helper ? "helper" : "ranks",
    started: Boolean(cs?.state?.running || term),
    ...(term ? { terminated: { exitCode: term.exitCode, reason: term.reason, message: term.message } } : {}),
    ...(wait?.reason ? { waiting: { reason: wait.reason, message: wait.message } } : {}),
    ...(sched?.status === "False" ? { unschedulable: `${sched.reason ?? "Unschedulable"}: ${sched.message ?? "no node fits"}` } : {}),
    ...(st.phase === "Failed" && st.reason ? { podFailure: `${st.reason}${st.message ? `: ${st.message}` : ""}` } : {}),
    ...(disr?.status === "True" ? { disruption: `${disr.reason ?? "DisruptionTarget"}${disr.message ? `: ${disr.message}` : ""}` } : {}),
    deleted,
  };
}

/** Indexed Job index, PyTorchJob master 0 / worker i+1, MPIJob launcher 0, per-node 0 */
export function nodeRankOf(labels: Record<string, string>, annotations: Record<string, string>): number {
  const idx = annotations["batch.kubernetes.io/job-completion-index"] ?? labels["batch.kubernetes.io/job-completion-index"];
  if (idx !== undefined) return Number(idx);
  const type = labels["training.kubeflow.org/replica-type"];
  const i = Number(labels["training.kubeflow.org/replica-index"] ?? 0);
  return type === "worker" ? i + 1 : 0;
}

export type Decision = { done: false; pending: string[] } | { done: true; status: UnitStatus; message?: string; culprit?: PodView };

function where(v: PodView): string {
  return `pod ${v.name}${v.node ? ` on node ${v.node}` : ""}`;
}

function pendingReason(v: PodView): string | undefined {
  if (v.started) return undefined;
  if (v.unschedulable) return `${where(v)} is unschedulable: ${v.unschedulable}`;
  if (v.waiting) return `${where(v)} is waiting: ${v.waiting.reason}${v.waiting.message ? `: ${v.waiting.message}` : ""}`;
  return `${where(v)} is ${v.phase}${v.node ? "" : " (not scheduled yet)"}`;
}

/**
 * What the pods say now. `expected` is how many rank pods the test has; `waitedMs` how long since
 * the objects were created; after `queueTimeoutMs` with pods still not started, give up.
 */
export function decide(views: PodView[], expected: number, waitedMs: number, queueTimeoutMs: number, creationProblem?: string): Decision {
  const ranks = views.filter((v) => v.role === "ranks");
  // helpers (MPI workers) are torn down by their operator once the launcher is done
  if (ranks.length >= expected && ranks.every((v) => v.phase === "Succeeded")) return { done: true, status: "completed" };
  for (const v of views) {
    if (v.terminated && NOT_STARTED.has(v.terminated.reason ?? "")) {
      return {
        done: true,
        status: "infra",
        culprit: v,
        message: `${where(v)} could not start its container: ${v.terminated.reason}${v.terminated.message ? `: ${v.terminated.message}` : ""}`,
      };
    }
    if (v.role === "ranks" && v.terminated && v.terminated.exitCode !== 0 && !v.disruption) {
      return { done: true, status: "failed", culprit: v };
    }
    const gone = v.disruption ?? v.podFailure ?? (v.deleted ? "deleted by someone other than gpucheck" : undefined);
    if (gone && !(v.phase === "Succeeded")) {
      return { done: true, status: "infra", culprit: v, message: `${where(v)} was lost before it finished: ${gone}` };
    }
    if (v.waiting && FATAL_WAITING.has(v.waiting.reason)) {
      return { done: true, status: "infra", culprit: v, message: `${where(v)} cannot start: ${v.waiting.reason}${v.waiting.message ? `: ${v.waiting.message}` : ""}` };
    }
  }
  const pending = views.map(pendingReason).filter((r): r is string => r !== undefined);
  const missing = expected - ranks.length;
  if (missing > 0) pending.push(`${missing} of ${expected} pods not created yet${creationProblem ? ` (${creationProblem})` : ""}`);
  if (pending.length && waitedMs > queueTimeoutMs) {
    return { done: true, status: "infra", message: `gave up after ${Math.round(queueTimeoutMs / 1000)}s waiting for pods to start: ${pending.join("; ")}` };
  }
  return { done: false, pending };
}
