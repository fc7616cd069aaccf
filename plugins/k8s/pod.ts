// The pod every mode shares: GPU limits, CPU/memory requests, a memory-backed /dev/shm, the
// workload ConfigMap at STAGE_DIR, one pod per node, and a command that starts the node's ranks
// with the workload's own launcher (gpucheck_workload.launch: no torchrun, no custom image).
import type { V1Container, V1EnvVar, V1PodSpec, V1PodTemplateSpec, V1Volume } from "@kubernetes/client-node";
import type { Launch } from "../../lib/core/types.ts";
import { rankEnv } from "../../lib/core/platform.ts";
import { configMapKey, k8sLiteral, LABEL_RUN, LABEL_TEST, STAGE_DIR, type Names } from "./names.ts";
import type { K8sSettings } from "./settings.ts";

export interface PodInput {
  names: Names;
  settings: K8sSettings;
  image: string;
  launch: Launch;
  labels: Record<string, string>;
  annotations?: Record<string, string>;
  gpusPerNode: number;
  ranksPerNode: number;
  worldSize: number;
  /** the node rank as Kubernetes will expand it in args, e.g. "$(JOB_COMPLETION_INDEX)" */
  nodeRank: string;
  /** null: the Kubeflow operator injects MASTER_ADDR/MASTER_PORT/WORLD_SIZE itself */
  master: { addr: string; port: number } | null;
  containerName?: string;
  /** set on Indexed Job pods so `<job>-<i>.<subdomain>` resolves */
  subdomain?: string;
  /** the nodes this pod may land on: its node (per-node mode), its unit's (a pattern's group) */
  nodes?: string[];
  /** extra ports on the container (the PyTorchJob operator reads its port by name) */
  ports?: Array<{ name: string; containerPort: number }>;
}

/** `python -m gpucheck_workload.launch` under an optional `sh -c 'ulimit …; exec "$@"'` */
export function rankCommand(launch: Launch, ranksPerNode: number, nodeRank: string, ulimits: K8sSettings["ulimits"]): string[] {
  const launcher = [k8sLiteral(launch.python), "-m", "gpucheck_workload.launch", "--nprocs", String(ranksPerNode), "--node-rank", nodeRank, "--", ...launch.args.map(k8sLiteral)];
  const flags: Record<string, string> = { memlock: "-l", nofile: "-n", stack: "-s", core: "-c", nproc: "-u" };
  const raises = Object.entries(ulimits).map(([name, v]) => `ulimit ${flags[name]} ${v}`);
  if (raises.length === 0) return launcher;
  // the values are validated integers or "unlimited"; everything else is a positional argument
  return ["/bin/sh", "-c", k8sLiteral(`${raises.join(" && ")} && exec "$@"`), "gpucheck-ulimits", ...launcher];
}

function env(p: PodInput): V1EnvVar[] {
  const fixed: Record<string, string> = {
    PYTHONPATH: STAGE_DIR,
    PYTHONUNBUFFERED: "1",
    PYTHONDONTWRITEBYTECODE: "1",
  };
  if (p.master) {
    const r = rankEnv({ rank: 0, worldSize: p.worldSize, localRank: 0, localWorldSize: p.ranksPerNode, masterAddr: p.master.addr, masterPort: p.master.port, node: "" });
    // RANK and LOCAL_RANK are per process (the launcher sets them), GPUCHECK_NODE comes from the downward API
    for (const k of ["WORLD_SIZE", "LOCAL_WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT"] as const) fixed[k] = r[k];
  } else {
    fixed.LOCAL_WORLD_SIZE = String(p.ranksPerNode);
  }
  return [
    ...Object.entries(p.launch.env).map(([name, value]) => ({ name, value: k8sLiteral(value) })),
    ...Object.entries(fixed).map(([name, value]) => ({ name, value })),
    { name: "GPUCHECK_NODE", valueFrom: { fieldRef: { fieldPath: "spec.nodeName" } } },
  ];
}

function container(p: PodInput): V1Container {
  const s = p.settings;
  const requests: Record<string, string> = {};
  if (s.resources.cpu !== undefined) requests.cpu = String(s.resources.cpu);
  if (s.resources.memory !== undefined) requests.memory = String(s.resources.memory);
  const limits: Record<string, string> = {};
  if (p.gpusPerNode > 0) limits[s.resources.gpu] = String(p.gpusPerNode);
  for (const [name, q] of Object.entries(s.resources.extra)) limits[name] = String(q);
  const caps = [...(s.ipcLock ? ["IPC_LOCK"] : []), ...(Object.keys(s.ulimits).length ? ["SYS_RESOURCE"] : [])];
  return {
    name: p.containerName ?? "gpucheck",
    image: p.image,
    imagePullPolicy: s.imagePullPolicy,
    command: rankCommand(p.launch, p.ranksPerNode, p.nodeRank, s.ulimits),
    env: env(p),
    resources: { ...(Object.keys(requests).length ? { requests } : {}), ...(Object.keys(limits).length ? { limits } : {}) },
    ...(p.ports?.length ? { ports: p.ports.map((x) => ({ ...x, protocol: "TCP" })) } : {}),
    volumeMounts: [
      { name: "workload", mountPath: STAGE_DIR, readOnly: true },
      { name: "dshm", mountPath: "/dev/shm" },
    ],
    ...(caps.length ? { securityContext: { capabilities: { add: caps } } } : {}),
  };
}

function volumes(p: PodInput): V1Volume[] {
  return [
    {
      name: "workload",
      configMap: {
        name: p.names.configMap,
        defaultMode: 0o444,
        items: [...p.launch.files].sort().map((path) => ({ key: configMapKey(path), path })),
      },
    },
    { name: "dshm", emptyDir: { medium: "Memory", sizeLimit: String(p.settings.shmSize) } },
  ];
}

export function podTemplate(p: PodInput): V1PodTemplateSpec {
  const s = p.settings;
  const pinned = p.nodes ?? s.nodes;
  const sameTest = { [LABEL_RUN]: p.labels[LABEL_RUN]!, [LABEL_TEST]: p.labels[LABEL_TEST]! };
  const spec: V1PodSpec = {
    restartPolicy: "Never",
    enableServiceLinks: false,
    // the workload never talks to the API server: a mounted token would only be there to steal
    automountServiceAccountToken: false,
    terminationGracePeriodSeconds: 30,
    ...(p.subdomain ? { subdomain: p.subdomain } : {}),
    ...(s.serviceAccountName ? { serviceAccountName: s.serviceAccountName } : {}),
    ...(s.priorityClassName ? { priorityClassName: s.priorityClassName } : {}),
    ...(s.hostNetwork ? { hostNetwork: true, dnsPolicy: "ClusterFirstWithHostNet" } : {}),
    ...(s.imagePullSecrets.length ? { imagePullSecrets: s.imagePullSecrets.map((name) => ({ name })) } : {}),
    ...(Object.keys(s.nodeSelector).length ? { nodeSelector: s.nodeSelector } : {}),
    tolerations: s.tolerations,
    affinity: {
      // two ranks' pods on one node would share its GPUs and NICs and measure neither
      podAntiAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: [{ labelSelector: { matchLabels: sameTest }, topologyKey: "kubernetes.io/hostname" }],
      },
      ...(pinned?.length
        ? {
            nodeAffinity: {
              // matchFields on metadata.name (as DaemonSets do) keeps the scheduler's checks (GPUs free,
              // taints, a Pending reason in events), unlike spec.nodeName; and unlike the
              // kubernetes.io/hostname label it is the node's name on every cloud
              requiredDuringSchedulingIgnoredDuringExecution: {
                nodeSelectorTerms: [{ matchFields: [{ key: "metadata.name", operator: "In", values: pinned }] }],
              },
            },
          }
        : {}),
    },
    containers: [container(p)],
    volumes: volumes(p),
  };
  return { metadata: { labels: p.labels, ...(p.annotations ? { annotations: p.annotations } : {}) }, spec };
}
