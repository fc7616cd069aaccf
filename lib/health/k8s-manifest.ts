// `gpucheck plan quick --platform k8s --health`: what runs `gpucheck health` on every GPU node and marks
// the node: a DaemonSet (one pod per node matching the selector, the node's name from the downward
// API) whose container runs the health check every interval and sets the Node condition
// GPUCheckHealthy (lib/health/k8s-condition.ts), and the RBAC that allows exactly that: a
// ServiceAccount bound to a ClusterRole with get and patch on nodes/status and nothing else.
// The pod asks for no GPU (it would hold the node's GPUs between checks): NVIDIA_VISIBLE_DEVICES=all
// gives the container every GPU through the NVIDIA container runtime, as DCGM exporter's DaemonSet does.
import { stringify } from "../core/yaml.ts";

export interface HealthManifestOptions {
  /** an image holding the gpucheck binary, Python and torch (and nvidia-smi, dcgmi for their checks) */
  image: string;
  namespace: string;
  /** seconds between two checks on one node */
  intervalS: number;
  /** gpucheck health's own arguments after the ones the manifest sets (--suite, --baseline …) */
  args: string[];
  nodeSelector: Record<string, string>;
  /** the node's acceptance results directory, mounted read-only from the host at the same path */
  baseline?: string;
}

export const HEALTH_DEFAULTS: Omit<HealthManifestOptions, "image"> = {
  namespace: "gpucheck",
  // CoreWeave runs its idle-node checks hourly (issue 29); a site sets its own interval
  intervalS: 3600,
  args: [],
  nodeSelector: { "nvidia.com/gpu.present": "true" },
};

const NAME = "gpucheck-health";
const shellQuote = (s: string) => (/^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`);

export function healthManifests(o: HealthManifestOptions): Array<Record<string, unknown>> {
  const labels = { "app.kubernetes.io/name": NAME };
  // the check's failure is the condition's business, not the pod's: the loop goes on either way
  const args = [...o.args, ...(o.baseline ? ["--baseline", o.baseline] : [])];
  const loop = `while true; do gpucheck health --k8s-condition --node "$NODE_NAME"${args.map((a) => ` ${shellQuote(a)}`).join("")}; sleep ${o.intervalS}; done`;
  // each node's own accepted figures live on that node (its acceptance run's results directory)
  const baseline = o.baseline ? { volumes: [{ name: "baseline", hostPath: { path: o.baseline, type: "Directory" } }] } : {};
  const mount = o.baseline ? { volumeMounts: [{ name: "baseline", mountPath: o.baseline, readOnly: true }] } : {};
  return [
    { apiVersion: "v1", kind: "Namespace", metadata: { name: o.namespace } },
    { apiVersion: "v1", kind: "ServiceAccount", metadata: { name: NAME, namespace: o.namespace, labels } },
    {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "ClusterRole",
      metadata: { name: NAME, labels },
      // read the node's conditions (so lastTransitionTime moves only on a flip) and patch them: nothing else
      rules: [{ apiGroups: [""], resources: ["nodes/status"], verbs: ["get", "patch"] }],
    },
    {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "ClusterRoleBinding",
      metadata: { name: NAME, labels },
      roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: NAME },
      subjects: [{ kind: "ServiceAccount", name: NAME, namespace: o.namespace }],
    },
    {
      apiVersion: "apps/v1",
      kind: "DaemonSet",
      metadata: { name: NAME, namespace: o.namespace, labels },
      spec: {
        selector: { matchLabels: labels },
        template: {
          metadata: { labels },
          spec: {
            serviceAccountName: NAME,
            nodeSelector: o.nodeSelector,
            tolerations: [{ key: "nvidia.com/gpu", operator: "Exists", effect: "NoSchedule" }],
            containers: [
              {
                name: "health",
                image: o.image,
                command: ["/bin/sh", "-c", loop],
                env: [
                  { name: "NODE_NAME", valueFrom: { fieldRef: { fieldPath: "spec.nodeName" } } },
                  { name: "NVIDIA_VISIBLE_DEVICES", value: "all" },
                ],
                // the kernel log (Xid) and the InfiniBand counters are read from the host
                securityContext: { capabilities: { add: ["SYSLOG"] } },
                ...mount,
              },
            ],
            ...baseline,
          },
        },
      },
    },
  ];
}

export function healthManifestsYaml(o: HealthManifestOptions): string {
  const head = [
    "# gpucheck health on every GPU node: kubectl apply -f this file",
    `# each pod runs \`gpucheck health --k8s-condition\` every ${o.intervalS} s and sets the Node condition GPUCheckHealthy`,
    "# RBAC: get and patch on nodes/status only",
  ];
  return `${head.join("\n")}\n${healthManifests(o)
    .map((m) => stringify(m, { lineWidth: 0, aliasDuplicateObjects: false }))
    .join("---\n")}`;
}
