// The fake's controllers, doing what kube-controller-manager's Job controller and the Kubeflow
// training operator do to the objects gpucheck creates: pods from templates, with the labels,
// annotations, hostnames and injected env of the real ones, and the owner's status from its pods.
import { randomUUID } from "node:crypto";
import type { PodObj } from "./kubelet.ts";
import type { Obj, Store } from "./store.ts";

type Template = { metadata?: { labels?: Record<string, string>; annotations?: Record<string, string> }; spec: PodObj["spec"] & Record<string, unknown> };
export type JobObj = Obj & {
  spec: { completions?: number; parallelism?: number; completionMode?: string; backoffLimit?: number; activeDeadlineSeconds?: number; template: Template };
  status?: { conditions?: Array<{ type: string; status: string; reason?: string; message?: string }>; active?: number; succeeded?: number; failed?: number; startTime?: string };
};

const INDEX = "batch.kubernetes.io/job-completion-index";

export function ownedBy(o: Obj, uid: string): boolean {
  return (o.metadata.ownerReferences ?? []).some((r) => r.uid === uid);
}

function ownerRef(owner: Obj) {
  return [{ apiVersion: owner.apiVersion, kind: owner.kind, name: owner.metadata.name, uid: owner.metadata.uid!, controller: true, blockOwnerDeletion: true }];
}

const terminal = (p: PodObj) => p.status?.phase === "Succeeded" || p.status?.phase === "Failed";

/** the Indexed Job pod for `index`: name <job>-<index>-<random>, hostname <job>-<index>, JOB_COMPLETION_INDEX */
export function indexedPod(job: JobObj, index: number): PodObj {
  const t = structuredClone(job.spec.template);
  const labels = {
    ...(t.metadata?.labels ?? {}),
    "batch.kubernetes.io/controller-uid": job.metadata.uid!,
    "batch.kubernetes.io/job-name": job.metadata.name,
    "job-name": job.metadata.name,
    [INDEX]: String(index),
  };
  const spec = { ...t.spec, hostname: `${job.metadata.name}-${index}` };
  for (const c of spec.containers) {
    c.env = [...(c.env ?? []), { name: "JOB_COMPLETION_INDEX", valueFrom: { fieldRef: { fieldPath: `metadata.annotations['${INDEX}']` } } }];
  }
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: {
      name: `${job.metadata.name}-${index}-${randomUUID().slice(0, 5)}`,
      labels,
      annotations: { ...(t.metadata?.annotations ?? {}), [INDEX]: String(index) },
      ownerReferences: ownerRef(job),
    },
    spec,
    status: { phase: "Pending" },
  };
}

/** the Job controller, for Indexed Jobs: one pod per index, backoffLimit, activeDeadlineSeconds */
export function reconcileJob(store: Store, job: JobObj, lost: Set<string>, deletePod: (ns: string, name: string) => void, createPod: (job: JobObj, pod: PodObj) => boolean): void {
  const ns = job.metadata.namespace!;
  if (job.metadata.deletionTimestamp) return;
  const conds = job.status?.conditions ?? [];
  if (conds.some((c) => (c.type === "Complete" || c.type === "Failed") && c.status === "True")) return;
  const pods = store.list("pods", ns, (p) => ownedBy(p, job.metadata.uid!)) as PodObj[];
  const idx = (p: PodObj) => Number(p.metadata.annotations?.[INDEX]);
  const succeeded = new Set(pods.filter((p) => p.status?.phase === "Succeeded").map(idx));
  const failed = pods.filter((p) => p.status?.phase === "Failed").length + lost.size;
  const activePods = pods.filter((p) => !terminal(p) && !p.metadata.deletionTimestamp);
  const startTime = job.status?.startTime ?? new Date().toISOString();
  const completions = job.spec.completions ?? 1;
  let finish: { type: string; reason: string; message: string } | undefined;
  if (failed > (job.spec.backoffLimit ?? 6)) finish = { type: "Failed", reason: "BackoffLimitExceeded", message: "Job has reached the specified backoff limit" };
  else if (job.spec.activeDeadlineSeconds && Date.now() - Date.parse(startTime) > job.spec.activeDeadlineSeconds * 1000) {
    finish = { type: "Failed", reason: "DeadlineExceeded", message: "Job was active longer than specified deadline" };
  } else if (succeeded.size >= completions) finish = { type: "Complete", reason: "CompletionsReached", message: "Reached expected number of succeeded pods" };
  if (finish?.type === "Failed") for (const p of activePods) deletePod(ns, p.metadata.name);
  if (!finish) {
    const have = new Set(pods.filter((p) => p.status?.phase !== "Failed").map(idx));
    for (let i = 0; i < completions && activePods.length < (job.spec.parallelism ?? completions); i++) {
      if (have.has(i)) continue;
      // admission (PodSecurity, quota) can refuse the pod: the Job stays, with a FailedCreate event
      if (!createPod(job, indexedPod(job, i))) break;
      activePods.push({} as PodObj);
    }
  }
  store.update("jobs", ns, job.metadata.name, (o) => {
    const j = o as JobObj;
    j.status = {
      ...j.status,
      startTime,
      active: finish ? 0 : activePods.length,
      succeeded: succeeded.size,
      failed,
      ...(finish ? { conditions: [...conds, { type: finish.type, status: "True", reason: finish.reason, message: finish.message }] } : {}),
    };
  });
}

type PyTorchJobObj = Obj & { spec: { nprocPerNode?: string; pytorchReplicaSpecs: Record<string, { replicas: number; template: Template }> } };

/** the training operator's pods: <job>-master-0, <job>-worker-<i>, with the env it injects */
export function reconcilePyTorchJob(store: Store, job: PyTorchJobObj): void {
  const ns = job.metadata.namespace!;
  if (store.list("pods", ns, (p) => ownedBy(p, job.metadata.uid!)).length) return;
  const specs = job.spec.pytorchReplicaSpecs;
  const total = Object.values(specs).reduce((n, s) => n + s.replicas, 0);
  const nproc = Number(job.spec.nprocPerNode ?? 1) || 1;
  const master = specs.Master!.template.spec.containers.find((c) => c.name === "pytorch")!;
  const port = String((master as { ports?: Array<{ name: string; containerPort: number }> }).ports?.find((p) => p.name === "pytorchjob-port")?.containerPort ?? 23456);
  const masterAddr = `${job.metadata.name}-master-0`;
  store.create("services", ns, { apiVersion: "v1", kind: "Service", metadata: { name: masterAddr, ownerReferences: ownerRef(job) }, spec: { clusterIP: "None" } });
  for (const [type, s] of Object.entries(specs)) {
    for (let i = 0; i < s.replicas; i++) {
      const rank = type === "Master" ? 0 : i + 1;
      const t = structuredClone(s.template);
      for (const c of t.spec.containers.filter((c) => c.name === "pytorch")) {
        const env = {
          PYTHONUNBUFFERED: "1",
          MASTER_PORT: port,
          PET_MASTER_PORT: port,
          MASTER_ADDR: masterAddr,
          PET_MASTER_ADDR: masterAddr,
          WORLD_SIZE: String(total * nproc),
          RANK: String(rank),
          PET_NODE_RANK: String(rank),
          ...(job.spec.nprocPerNode ? { PET_NPROC_PER_NODE: job.spec.nprocPerNode } : {}),
          PET_NNODES: String(total),
        };
        c.env = [...(c.env ?? []), ...Object.entries(env).map(([name, value]) => ({ name, value }))];
      }
      const rtype = type.toLowerCase();
      const labels = {
        ...(t.metadata?.labels ?? {}),
        "training.kubeflow.org/job-name": job.metadata.name,
        "training.kubeflow.org/operator-name": "pytorchjob-controller",
        "training.kubeflow.org/replica-type": rtype,
        "training.kubeflow.org/replica-index": String(i),
        ...(rank === 0 ? { "training.kubeflow.org/job-role": "master" } : {}),
      };
      store.create("pods", ns, {
        apiVersion: "v1",
        kind: "Pod",
        metadata: { name: `${job.metadata.name}-${rtype}-${i}`, labels, ownerReferences: ownerRef(job) },
        spec: { ...t.spec, hostname: `${job.metadata.name}-${rtype}-${i}` },
        status: { phase: "Pending" },
      });
    }
  }
}
