// The fake scheduler's filters, with kube-scheduler's wording: node selector and required node
// affinity (labels and matchFields), taints vs tolerations, extended resources (GPUs, RDMA) against
// node capacity, required pod anti-affinity, cordoned and NotReady nodes.
import type { Obj } from "./store.ts";

type Toleration = { key?: string; operator?: string; value?: string; effect?: string };
type Taint = { key: string; value?: string; effect: string };
type Req = { key: string; operator: string; values?: string[] };
export type NodeObj = Obj & {
  spec?: { unschedulable?: boolean; taints?: Taint[] };
  status?: { capacity?: Record<string, string>; allocatable?: Record<string, string>; conditions?: Array<{ type: string; status: string }> };
};
type PodSpec = {
  nodeName?: string;
  nodeSelector?: Record<string, string>;
  tolerations?: Toleration[];
  affinity?: {
    nodeAffinity?: { requiredDuringSchedulingIgnoredDuringExecution?: { nodeSelectorTerms: Array<{ matchExpressions?: Req[]; matchFields?: Req[] }> } };
    podAntiAffinity?: { requiredDuringSchedulingIgnoredDuringExecution?: Array<{ labelSelector: { matchLabels?: Record<string, string> }; topologyKey: string }> };
  };
  containers: Array<{ resources?: { limits?: Record<string, string>; requests?: Record<string, string> } }>;
};
export type SchedPod = Obj & { spec: PodSpec; status?: { phase?: string } };

function requirementHolds(r: Req, value: string | undefined): boolean {
  switch (r.operator) {
    case "In":
      return value !== undefined && (r.values ?? []).includes(value);
    case "NotIn":
      return value === undefined || !(r.values ?? []).includes(value);
    case "Exists":
      return value !== undefined;
    case "DoesNotExist":
      return value === undefined;
    default:
      return false;
  }
}

function tolerates(t: Toleration[], taint: Taint): boolean {
  return t.some(
    (x) => (!x.effect || x.effect === taint.effect) && (x.operator === "Exists" ? !x.key || x.key === taint.key : x.key === taint.key && (x.value ?? "") === (taint.value ?? "")),
  );
}

const extendedOf = (p: SchedPod) => {
  const out: Record<string, number> = {};
  for (const c of p.spec.containers) for (const [k, v] of Object.entries(c.resources?.limits ?? {})) if (k.includes("/")) out[k] = (out[k] ?? 0) + Number(v);
  return out;
};

const active = (p: SchedPod) => p.status?.phase !== "Succeeded" && p.status?.phase !== "Failed" && !p.metadata.deletionTimestamp;

/** why `node` cannot take `pod` (undefined: it can) */
export function unfit(pod: SchedPod, node: NodeObj, bound: SchedPod[]): string | undefined {
  const labels = node.metadata.labels ?? {};
  if (node.spec?.unschedulable) return "node(s) were unschedulable";
  if ((node.status?.conditions ?? []).find((c) => c.type === "Ready")?.status !== "True") return "node(s) had untolerated taint {node.kubernetes.io/not-ready: }";
  const sel = pod.spec.nodeSelector ?? {};
  const terms = pod.spec.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms;
  const termOk = (t: { matchExpressions?: Req[]; matchFields?: Req[] }) =>
    (t.matchExpressions ?? []).every((r) => requirementHolds(r, labels[r.key])) &&
    (t.matchFields ?? []).every((r) => requirementHolds(r, r.key === "metadata.name" ? node.metadata.name : undefined));
  if (Object.entries(sel).some(([k, v]) => labels[k] !== v) || (terms && !terms.some(termOk))) return "node(s) didn't match Pod's node affinity/selector";
  for (const taint of node.spec?.taints ?? []) {
    if (taint.effect !== "PreferNoSchedule" && !tolerates(pod.spec.tolerations ?? [], taint)) return `node(s) had untolerated taint {${taint.key}: ${taint.value ?? ""}}`;
  }
  const onNode = bound.filter((p) => p.spec.nodeName === node.metadata.name && active(p));
  const want = extendedOf(pod);
  const alloc = node.status?.allocatable ?? node.status?.capacity ?? {};
  for (const [res, n] of Object.entries(want)) {
    const used = onNode.reduce((s, p) => s + (extendedOf(p)[res] ?? 0), 0);
    if (used + n > Number(alloc[res] ?? 0)) return `Insufficient ${res}`;
  }
  for (const term of pod.spec.affinity?.podAntiAffinity?.requiredDuringSchedulingIgnoredDuringExecution ?? []) {
    const m = term.labelSelector.matchLabels ?? {};
    if (onNode.some((p) => p.metadata.name !== pod.metadata.name && Object.entries(m).every(([k, v]) => p.metadata.labels?.[k] === v))) {
      return "node(s) didn't match pod anti-affinity rules";
    }
  }
  return undefined;
}

/** the first node that fits, or kube-scheduler's "0/N nodes are available: …" */
export function schedule(pod: SchedPod, nodes: NodeObj[], bound: SchedPod[]): { node: string } | { message: string } {
  const why = new Map<string, number>();
  for (const n of nodes) {
    const r = unfit(pod, n, bound);
    if (!r) return { node: n.metadata.name };
    why.set(r, (why.get(r) ?? 0) + 1);
  }
  const parts = [...why].sort(([a], [b]) => a.localeCompare(b)).map(([r, n]) => `${n} ${r}`);
  return {
    message: `0/${nodes.length} nodes are available: ${parts.join(", ")}. preemption: 0/${nodes.length} nodes are available: ${nodes.length} Preemption is not helpful for scheduling.`,
  };
}
