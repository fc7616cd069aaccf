// `platform.k8s:` in a suite. Only what GPU pods need and hand-written manifests often miss;
// everything has a default that works on a stock NVIDIA GPU Operator cluster.
import * as z from "../../lib/core/schema.ts";

// apimachinery's resource.Quantity grammar: "64", "500m", "256Gi", "1e3"
const QUANTITY = /^[+-]?(\d+(\.\d*)?|\.\d+)(([KMGTPE]i)|[numkMGTPE]|[eE][+-]?(\d+(\.\d*)?|\.\d+))?$/;
const quantity = z.union([z.number().nonnegative(), z.string().regex(QUANTITY, "must be a Kubernetes quantity such as 500m, 64, 256Gi")]);
// RFC 1123 label: namespaces, service accounts, container names
const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const dnsLabel = z.string().max(63).regex(DNS_LABEL, "must be a lowercase RFC 1123 label (a-z, 0-9, '-')");
// node names: RFC 1123 subdomains
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

const RLIMITS = ["memlock", "nofile", "stack", "core", "nproc"] as const;
const rlimit = z.union([z.literal("unlimited"), z.number().int().nonnegative()]);

const toleration = z
  .object({
    key: z.string().optional(),
    operator: z.enum(["Exists", "Equal"]).optional(),
    value: z.string().optional(),
    effect: z.enum(["NoSchedule", "PreferNoSchedule", "NoExecute"]).optional(),
    tolerationSeconds: z.number().int().optional(),
  })
  .strict();

export const MODES = ["indexed-job", "pytorchjob", "mpijob"] as const;

export const settings = z.lazy(() =>
  z
    .object({
      /** kubeconfig context; `--context` wins */
      context: z.string().min(1).optional(),
      /** default: the context's namespace, else "default" */
      namespace: dnsLabel.optional(),
      /** an image with Python (and torch for GPU tests); `--image` wins */
      image: z.string().min(1).optional(),
      imagePullPolicy: z.enum(["Always", "IfNotPresent", "Never"]).default("IfNotPresent"),
      imagePullSecrets: z.array(dnsLabel).default([]),
      /** indexed-job: batch/v1 only; pytorchjob/mpijob: Kubeflow operators, used only when their CRD is served */
      mode: z.enum(MODES).default("indexed-job"),
      resources: z
        .object({
          /** requests; GPUs are always limits = the test's gpusPerNode */
          cpu: quantity.optional(),
          memory: quantity.optional(),
          /** the GPU resource name (amd.com/gpu on ROCm clusters) */
          gpu: z.string().min(1).default("nvidia.com/gpu"),
          /** extra extended resources per pod, e.g. {"rdma/ib": 1} or {"nvidia.com/hostdev": 8} */
          extra: z.record(z.string().min(1), quantity).default({}),
        })
        .strict()
        .default({ gpu: "nvidia.com/gpu", extra: {} }),
      /** size of the memory-backed /dev/shm (NCCL and dataloaders need far more than the runtime's 64 MiB) */
      shmSize: quantity.default("16Gi"),
      /** rlimits raised for the ranks, e.g. {memlock: unlimited} for RDMA; adds CAP_SYS_RESOURCE only then */
      ulimits: z.partialRecord(z.enum(RLIMITS), rlimit).default({}),
      /** CAP_IPC_LOCK, for RDMA memory registration */
      ipcLock: z.boolean().default(false),
      nodeSelector: z.record(z.string().min(1), z.string()).default({}),
      /**
       * the nodes a run may use, by name: known before the run, so the isolating patterns can plan
       * their rounds; every pod is pinned among them. Absent: any Ready node (matching nodeSelector).
       */
      nodes: z
        .array(z.string().max(253).regex(DNS_SUBDOMAIN, "must be a Kubernetes node name (lowercase RFC 1123 subdomain: a-z, 0-9, '-', '.')"))
        .min(1)
        .refine((a) => new Set(a).size === a.length, "must not name a node twice")
        .optional(),
      /** default: tolerate the GPU Operator's nvidia.com/gpu NoSchedule taint */
      tolerations: z.array(toleration).default([{ key: "nvidia.com/gpu", operator: "Exists", effect: "NoSchedule" }]),
      /** the API server deletes finished Jobs after this even if gpucheck could not */
      ttlSecondsAfterFinished: z.number().int().nonnegative().default(3600),
      serviceAccountName: dnsLabel.optional(),
      priorityClassName: z.string().min(1).optional(),
      /** extra labels on every object and pod (gpucheck.dev/* are reserved) */
      labels: z.record(z.string().min(1), z.string().max(63)).default({}),
      /** rendezvous port of rank 0 */
      masterPort: z.number().int().min(1).max(65535).default(29500),
      /** hostNetwork pods see the node's IB/RoCE interfaces without a CNI plugin for RDMA */
      hostNetwork: z.boolean().default(false),
      /**
       * per-node tests: nodes whose Job exists at once, the next created as one ends and is deleted.
       * An API server takes thousands of pods; the bound is gpucheck's own: each node in its turn
       * holds a pod watch and a log stream open, and Bun's fetch keeps at most 256 requests in
       * flight, queueing the rest (at 256 nodes the log reads waited behind the watches until the
       * drain cut them). 64 nodes are 128 streams, with room left for the creates, deletes and
       * event reads; a 1,000-node inventory is then 16 short turns.
       */
      maxParallel: z
        .number()
        .int()
        .min(1)
        .max(100, "must be at most 100: each node holds a watch and a log stream open, and gpucheck keeps at most 256 requests in flight")
        .default(64),
    })
    .strict(),
);

export type K8sSettings = z.infer<typeof settings>;
