// A planned test → the Kubernetes objects that run it. Pure: `gpucheck plan` prints these, `run`
// creates them in this order (ConfigMap first, so no pod waits for its volume).
//   indexed-job: ConfigMap + headless Service + Indexed Job (pod index = node rank; rank 0's DNS
//                name `<job>-0.<svc>.<ns>.svc` is MASTER_ADDR)
//   pytorchjob / mpijob: ConfigMap + the Kubeflow job (see kubeflow.ts)
//   per-node:    ConfigMap + one single-pod Job per node, pinned by node affinity
import type { V1ConfigMap, V1Job, V1Service } from "@kubernetes/client-node";
import { activeDeadlineSeconds, type Manifest, type ManifestInput } from "./input.ts";
import { mpiJob, pytorchJob } from "./kubeflow.ts";
import { ANNOTATION_NODE, configMapKey, LABEL_UNIT, perNodeJobName, runLabels, unitLabel } from "./names.ts";
import { podTemplate } from "./pod.ts";

export function configMap(i: ManifestInput): V1ConfigMap & Manifest {
  const data: Record<string, string> = {};
  for (const [path, text] of i.files) data[configMapKey(path)] = text;
  return {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: i.names.configMap, namespace: i.namespace, labels: runLabels(i.names, i.settings.labels) },
    data,
  };
}

/** headless, and publishing not-ready pods, so rank 0's name resolves before its peers are up */
export function headlessService(i: ManifestInput): V1Service & Manifest {
  const labels = runLabels(i.names, i.settings.labels);
  return {
    apiVersion: "v1",
    kind: "Service",
    metadata: { name: i.names.base, namespace: i.namespace, labels },
    spec: {
      clusterIP: "None",
      publishNotReadyAddresses: true,
      selector: { "gpucheck.dev/run": i.names.runId, "gpucheck.dev/test": i.names.testLabel },
      ports: [{ name: "rendezvous", port: i.settings.masterPort, targetPort: i.settings.masterPort, protocol: "TCP" }],
    },
  };
}

function job(i: ManifestInput, name: string, count: number, template: ReturnType<typeof podTemplate>, labels: Record<string, string>): V1Job & Manifest {
  return {
    apiVersion: "batch/v1",
    kind: "Job",
    metadata: { name, namespace: i.namespace, labels },
    spec: {
      completionMode: "Indexed",
      completions: count,
      parallelism: count,
      // a rank that fails is a finding, not something to retry
      backoffLimit: 0,
      activeDeadlineSeconds: activeDeadlineSeconds(i),
      ttlSecondsAfterFinished: i.settings.ttlSecondsAfterFinished,
      template,
    },
  };
}

export function indexedJob(i: ManifestInput): V1Job & Manifest {
  const labels = runLabels(i.names, i.settings.labels);
  const template = podTemplate({
    names: i.names,
    settings: i.settings,
    image: i.image,
    launch: i.launch,
    labels,
    gpusPerNode: i.test.gpusPerNode,
    ranksPerNode: i.test.ranksPerNode,
    worldSize: i.test.worldSize,
    nodeRank: "$(JOB_COMPLETION_INDEX)",
    master: { addr: `${i.names.base}-0.${i.names.base}.${i.namespace}.svc`, port: i.settings.masterPort },
    subdomain: i.names.base,
  });
  return job(i, i.names.base, i.test.nodes, template, labels);
}

export function perNodeJob(i: ManifestInput, node: string): V1Job & Manifest {
  const labels = { ...runLabels(i.names, i.settings.labels), [LABEL_UNIT]: unitLabel(node) };
  const template = podTemplate({
    names: i.names,
    settings: i.settings,
    image: i.image,
    launch: i.launch,
    labels,
    annotations: { [ANNOTATION_NODE]: node },
    gpusPerNode: i.test.gpusPerNode,
    ranksPerNode: i.test.ranksPerNode,
    worldSize: i.test.ranksPerNode,
    nodeRank: "0",
    master: { addr: "127.0.0.1", port: i.settings.masterPort },
    nodeName: node,
  });
  const j = job(i, perNodeJobName(i.names, node), 1, template, labels);
  return { ...j, metadata: { ...j.metadata, annotations: { [ANNOTATION_NODE]: node } } };
}

/** the node name `gpucheck plan` shows for per-node Jobs (real names come from the API at run time) */
export const PLAN_NODE = "each-matching-node";

/** everything one test creates; per-node tests need the node list, which only run() has */
export function buildManifests(i: ManifestInput, nodes: string[] = [PLAN_NODE]): Manifest[] {
  if (i.test.perNode) return [configMap(i), ...nodes.map((n) => perNodeJob(i, n))];
  switch (i.settings.mode) {
    case "indexed-job":
      return [configMap(i), headlessService(i), indexedJob(i)];
    case "pytorchjob":
      return [configMap(i), pytorchJob(i)];
    case "mpijob":
      return [configMap(i), mpiJob(i)];
  }
}
