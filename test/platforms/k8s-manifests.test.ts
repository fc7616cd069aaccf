// The manifests `gpucheck plan --platform k8s` prints, for every built-in suite and every mode,
// validated against the Kubernetes OpenAPI schemas (kubernetes-models), plus the GPU pod settings
// that hand-written manifests often miss.
import { describe, expect, test } from "bun:test";
import { parseAllDocuments } from "yaml";
import { Job } from "kubernetes-models/batch/v1/Job";
import { ConfigMap } from "kubernetes-models/v1/ConfigMap";
import { PodTemplateSpec } from "kubernetes-models/v1/PodTemplateSpec";
import { Service } from "kubernetes-models/v1/Service";
import { builtinSuites } from "../../lib/core/assets.ts";
import { loadSuite } from "../../lib/load/mod.ts";
import { buildPlan } from "../../lib/plan/plan.ts";
import { k8s } from "../../plugins/k8s.ts";
import type { Manifest } from "../../plugins/k8s/input.ts";
import { rankEnv } from "../../lib/core/platform.ts";
import { fakeSuite, scriptTest } from "./conformance.ts";

const IMAGE = "nvcr.io/nvidia/pytorch:24.08-py3";
const SCHEMAS: Record<string, new (d: never) => { validate(): void }> = { Job, ConfigMap, Service };
type Pod = { spec: { containers: Array<Record<string, any>>; volumes: Array<Record<string, any>>; [k: string]: any }; metadata: { labels: Record<string, string> } };

/** every pod template in a manifest (Job, PyTorchJob replicas, MPIJob replicas) */
function templates(m: Manifest): Pod[] {
  const spec = m.spec as Record<string, any>;
  if (m.kind === "ConfigMap" || m.kind === "Service") return [];
  if (m.kind === "Job") return [spec.template];
  const replicas = spec.pytorchReplicaSpecs ?? spec.mpiReplicaSpecs ?? {};
  return Object.values(replicas).map((r: any) => r.template);
}

function validate(m: Manifest): void {
  const Schema = SCHEMAS[m.kind];
  if (Schema) new Schema(m as never).validate();
  for (const t of templates(m)) new PodTemplateSpec(t as never).validate();
}

const FULL = {
  image: IMAGE,
  namespace: "gpu-acceptance",
  resources: { cpu: 96, memory: "1600Gi", extra: { "rdma/ib": 8 } },
  shmSize: "256Gi",
  ulimits: { memlock: "unlimited", nofile: 1048576 },
  ipcLock: true,
  nodeSelector: { "nvidia.com/gpu.product": "NVIDIA-H100-80GB-HBM3" },
  serviceAccountName: "gpucheck",
  priorityClassName: "acceptance",
  imagePullSecrets: ["ngc"],
  hostNetwork: true,
  labels: { team: "infra" },
};

describe("every built-in suite renders schema-valid manifests in every mode", () => {
  for (const name of builtinSuites().keys()) {
    for (const mode of ["indexed-job", "pytorchjob", "mpijob"] as const) {
      for (const [variant, settings] of [
        ["defaults", {}],
        ["every option", FULL],
      ] as const) {
        test(`${name} / ${mode} / ${variant}`, async () => {
          const suite = await loadSuite(name);
          // a rack suite isolates by tray, so it names its nodes before the run (platform.k8s.nodes)
          const trays = name === "gb200-nvl72" ? { nodes: Array.from({ length: 18 }, (_, i) => `tray-${String(i + 1).padStart(2, "0")}`) } : {};
          suite.platform.settings.k8s = { ...settings, mode, ...trays };
          const plan = buildPlan(suite, { platform: "k8s", cli: { image: IMAGE } });
          expect(plan.tests.length).toBeGreaterThan(0);
          for (const t of plan.tests) {
            const r = t.rendered as { manifests: Manifest[]; yaml: string };
            for (const m of r.manifests) validate(m);
            // the YAML is the same objects, as kubectl would read them
            expect(parseAllDocuments(r.yaml).map((d) => d.toJS())).toEqual(JSON.parse(JSON.stringify(r.manifests)));
            const kinds = r.manifests.map((m) => m.kind);
            // per node: one Job, or one per node where the suite names them (a Job each, in turn)
            if (t.perNode) expect([kinds[0], [...new Set(kinds.slice(1))]]).toEqual(["ConfigMap", ["Job"]]);
            else expect(kinds).toEqual(mode === "indexed-job" ? ["ConfigMap", "Service", "Job"] : ["ConfigMap", mode === "pytorchjob" ? "PyTorchJob" : "MPIJob"]);
            for (const pod of r.manifests.flatMap(templates)) {
              // every pod of every mode, launchers included: no service-account token to steal (issue 31)
              expect(pod.spec.automountServiceAccountToken).toBe(false);
              const c = pod.spec.containers[0]!;
              if (c.name === "launcher") continue;
              expect(c.resources.limits?.["nvidia.com/gpu"]).toBe(t.gpusPerNode > 0 ? String(t.gpusPerNode) : undefined);
            }
          }
        });
      }
    }
  }
});

function render(
  settings: Record<string, unknown>,
  opts: { nodes?: number; ranksPerNode?: number; perNode?: boolean; gpus?: number; env?: Record<string, string>; args?: string[] } = {},
) {
  const t = scriptTest("All Reduce", "python3", "print(1)", { nodes: opts.nodes ?? 2, ranksPerNode: opts.ranksPerNode ?? 8, env: opts.env, args: opts.args });
  const test = { ...t, gpusPerNode: opts.gpus ?? 8, perNode: opts.perNode ?? false, worldSize: opts.perNode ? t.ranksPerNode : t.worldSize };
  const s = k8s.settings.parse({ image: IMAGE, ...settings });
  return k8s.render({ suite: fakeSuite(), settings: s, cli: {}, test, launch: test.launch, workloadHash: "0123456789abcdef" }) as { manifests: Manifest[]; yaml: string };
}

test("indexed-job: the GPU pod settings", () => {
  const { manifests } = render(FULL);
  const [cm, svc, job] = manifests as any[];
  expect(svc.spec).toMatchObject({ clusterIP: "None", publishNotReadyAddresses: true, selector: { "gpucheck.dev/run": expect.any(String), "gpucheck.dev/test": "all-reduce" } });
  expect(job.spec).toMatchObject({ completionMode: "Indexed", completions: 2, parallelism: 2, backoffLimit: 0, ttlSecondsAfterFinished: 3600, activeDeadlineSeconds: 180 });
  const pod = job.spec.template;
  expect(pod.metadata.labels).toEqual({
    team: "infra",
    "app.kubernetes.io/managed-by": "gpucheck",
    "gpucheck.dev/run": svc.spec.selector["gpucheck.dev/run"],
    "gpucheck.dev/test": "all-reduce",
  });
  expect(pod.spec.subdomain).toBe(svc.metadata.name);
  expect(pod.spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0]).toEqual({
    labelSelector: { matchLabels: svc.spec.selector },
    topologyKey: "kubernetes.io/hostname",
  });
  expect(pod.spec.tolerations).toEqual([{ key: "nvidia.com/gpu", operator: "Exists", effect: "NoSchedule" }]);
  expect(pod.spec).toMatchObject({
    restartPolicy: "Never",
    hostNetwork: true,
    dnsPolicy: "ClusterFirstWithHostNet",
    serviceAccountName: "gpucheck",
    priorityClassName: "acceptance",
    imagePullSecrets: [{ name: "ngc" }],
    nodeSelector: FULL.nodeSelector,
  });
  const c = pod.spec.containers[0];
  expect(c.resources).toEqual({ requests: { cpu: "96", memory: "1600Gi" }, limits: { "nvidia.com/gpu": "8", "rdma/ib": "8" } });
  expect(c.securityContext).toEqual({ capabilities: { add: ["IPC_LOCK", "SYS_RESOURCE"] } });
  expect(c.command).toEqual([
    "/bin/sh",
    "-c",
    'ulimit -l unlimited && ulimit -n 1048576 && exec "$$@"',
    "gpucheck-ulimits",
    "python3",
    "-m",
    "gpucheck_workload.launch",
    "--nprocs",
    "8",
    "--node-rank",
    "$(JOB_COMPLETION_INDEX)",
    "--",
    "-c",
    "print(1)",
  ]);
  expect(pod.spec.volumes).toContainEqual({ name: "dshm", emptyDir: { medium: "Memory", sizeLimit: "256Gi" } });
  expect(c.volumeMounts).toEqual([
    { name: "workload", mountPath: "/gpucheck/stage", readOnly: true },
    { name: "dshm", mountPath: "/dev/shm" },
  ]);
  const env = Object.fromEntries(c.env.map((e: any) => [e.name, e.value ?? e.valueFrom]));
  expect(env).toMatchObject({
    PYTHONPATH: "/gpucheck/stage",
    WORLD_SIZE: "16",
    LOCAL_WORLD_SIZE: "8",
    MASTER_PORT: "29500",
    MASTER_ADDR: `${svc.metadata.name}-0.${svc.metadata.name}.gpu-acceptance.svc`,
    GPUCHECK_NODE: { fieldRef: { fieldPath: "spec.nodeName" } },
  });
  // RANK and LOCAL_RANK are set per process by gpucheck_workload.launch; every other rank variable is here
  const r = rankEnv({ rank: 0, worldSize: 1, localRank: 0, localWorldSize: 1, masterAddr: "", masterPort: 1, node: "" });
  for (const k of Object.keys(r).filter((k) => k !== "RANK" && k !== "LOCAL_RANK")) expect(Object.keys(env)).toContain(k);
  // the workload's files, with '/' restored by the items mapping
  const items = pod.spec.volumes[0].configMap.items;
  for (const it of items) expect(Object.keys(cm.data)).toContain(it.key);
  expect(items.some((it: any) => it.path === "gpucheck_workload/launch.py")).toBe(true);
});

test("defaults: no privileges, no service-account token, no ulimit wrapper, no GPU limit on CPU tests, no hostNetwork", () => {
  const { manifests } = render({}, { gpus: 0 });
  const pod = (manifests[2] as any).spec.template.spec;
  expect(pod.automountServiceAccountToken).toBe(false);
  const c = pod.containers[0];
  expect(c.securityContext).toBeUndefined();
  expect(c.command.slice(0, 3)).toEqual(["python3", "-m", "gpucheck_workload.launch"]);
  expect(c.resources).toEqual({});
  expect(pod.hostNetwork).toBeUndefined();
  expect(JSON.stringify(manifests)).not.toContain("privileged");
});

test("values from the suite arrive literally: Kubernetes' $(VAR) expansion is escaped", () => {
  const { manifests } = render({}, { env: { X: "$(HOME) and $$" }, args: ["$(touch /tmp/pwned)"] });
  const c = (manifests[2] as any).spec.template.spec.containers[0];
  expect(c.env.find((e: any) => e.name === "X").value).toBe("$$(HOME) and $$$$");
  expect(c.command.at(-1)).toBe("$$(touch /tmp/pwned)");
});

test("per-node: a Job pinned by node affinity on metadata.name, MASTER_ADDR local", () => {
  const { manifests, yaml } = render({}, { perNode: true, nodes: 1 });
  const job = manifests[1] as any;
  expect(job.spec.completions).toBe(1);
  expect(job.spec.template.spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms).toEqual([
    { matchFields: [{ key: "metadata.name", operator: "In", values: ["each-matching-node"] }] },
  ]);
  expect(job.spec.template.spec.containers[0].env).toContainEqual({ name: "MASTER_ADDR", value: "127.0.0.1" });
  expect(yaml).toContain('# per-node: one such Job per Ready, schedulable node matching nodeSelector ("each-matching-node" stands for its name)');
});

test("pytorchjob: container 'pytorch' with the pytorchjob-port, nprocPerNode = ranksPerNode, node rank from $(RANK)", () => {
  const { manifests } = render({ mode: "pytorchjob" }, { nodes: 3 });
  const ptj = manifests[1] as any;
  expect(ptj.spec.nprocPerNode).toBe("8");
  expect(ptj.spec.runPolicy).toMatchObject({ cleanPodPolicy: "None", backoffLimit: 0 });
  expect(Object.keys(ptj.spec.pytorchReplicaSpecs)).toEqual(["Master", "Worker"]);
  expect(ptj.spec.pytorchReplicaSpecs.Worker.replicas).toBe(2);
  const c = ptj.spec.pytorchReplicaSpecs.Master.template.spec.containers[0];
  expect(c.name).toBe("pytorch");
  expect(c.ports).toEqual([{ name: "pytorchjob-port", containerPort: 29500, protocol: "TCP" }]);
  expect(c.command).toContain("$(RANK)");
  // the operator injects these; setting them too would be overridden anyway
  expect(c.env.map((e: any) => e.name)).not.toContain("MASTER_ADDR");
  expect(c.env.map((e: any) => e.name)).not.toContain("WORLD_SIZE");
});

test("mpijob: mpirun on a launcher without GPUs starts one gpucheck_workload.launch per worker", () => {
  const { manifests } = render({ mode: "mpijob" }, { nodes: 2, env: { NCCL_DEBUG: "INFO" } });
  const mj = manifests[1] as any;
  expect(mj.spec).toMatchObject({ slotsPerWorker: 1, mpiImplementation: "OpenMPI", runPolicy: { cleanPodPolicy: "Running" } });
  const launcher = mj.spec.mpiReplicaSpecs.Launcher.template.spec.containers[0];
  expect(launcher.resources).toEqual({});
  expect(launcher.command.slice(0, 9)).toEqual(["mpirun", "--allow-run-as-root", "-np", "2", "--map-by", "ppr:1:node", "--bind-to", "none", "-x"]);
  expect(launcher.command).toContain("NCCL_DEBUG=INFO");
  expect(launcher.command.find((a: string) => a.startsWith("MASTER_ADDR="))).toBe(`MASTER_ADDR=${mj.metadata.name}-worker-0.${mj.metadata.name}.{{namespace}}.svc`);
  const worker = mj.spec.mpiReplicaSpecs.Worker.template.spec.containers[0];
  expect(worker.command).toEqual(["/usr/sbin/sshd", "-De"]);
  expect(worker.resources.limits["nvidia.com/gpu"]).toBe("8");
});

test("settings: unknown keys and bad quantities are refused with the field named", () => {
  const bad = k8s.settings.safeParse({ image: IMAGE, shmsize: "1Gi", resources: { memory: "lots" }, mode: "tfjob" });
  expect(bad.success).toBe(false);
  const issues = bad.error!.issues.map((i) => `${i.path.join(".")}: ${i.message}`).sort();
  expect(issues).toEqual([
    ': Unrecognized key: "shmsize"',
    'mode: Invalid option: expected one of "indexed-job"|"pytorchjob"|"mpijob"',
    "resources.memory: must be a Kubernetes quantity such as 500m, 64, 256Gi",
  ]);
});

test("no image: a suite error that says where to set one", () => {
  expect(() => render({ image: undefined })).toThrow(
    "k8s: no container image: set platform.k8s.image in the suite or pass --image <ref> (an image with Python 3 and PyTorch, e.g. nvcr.io/nvidia/pytorch:24.08-py3)",
  );
});

test("the schema check has teeth: a wrong type or an unknown resource field is rejected", () => {
  const { manifests } = render({});
  const job = structuredClone(manifests[2]) as any;
  job.spec.completions = "2";
  expect(() => validate(job)).toThrow(/completions/);
  const pod = structuredClone(manifests[2]) as any;
  pod.spec.template.spec.containers[0].resources.limits = { "nvidia.com/gpu": { count: 8 } };
  expect(() => validate(pod)).toThrow();
});
