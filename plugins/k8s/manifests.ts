// A planned test → the Kubernetes objects that run it. Pure: `gpucheck plan` prints these, `run`
// creates them in this order (ConfigMap first, so no pod waits for its volume).
//   indexed-job: ConfigMap + headless Service + Indexed Job (pod index = node rank; rank 0's DNS
//                name `<job>-0.<svc>.<ns>.svc` is MASTER_ADDR)
//   pytorchjob / mpijob: ConfigMap + the Kubeflow job (see kubeflow.ts)
//   per-node:    ConfigMap + one single-pod Job per node, pinned by node affinity
//   groups:      (an isolating pattern's round) ConfigMap + per unit a headless Service and an
//                Indexed Job pinned to the unit's nodes, rank 0 of each its own MASTER_ADDR
import { SuiteError } from "../../lib/core/errors.ts";
import type { TestToRender } from "../../lib/core/platform.ts";
import type { PlannedUnit } from "../../lib/core/types.ts";
import type { V1ConfigMap, V1Job, V1Service } from "@kubernetes/client-node";
import { activeDeadlineSeconds, type Manifest, type ManifestInput } from "./input.ts";
import { mpiJob, pytorchJob } from "./kubeflow.ts";
import { ANNOTATION_NODE, configMapKey, groupName, LABEL_UNIT, perNodeJobName, runLabels, unitLabel } from "./names.ts";
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
export function headlessService(i: ManifestInput, name = i.names.base, unit?: string): V1Service & Manifest {
  const labels = { ...runLabels(i.names, i.settings.labels), ...(unit !== undefined && { [LABEL_UNIT]: unitLabel(unit) }) };
  return {
    apiVersion: "v1",
    kind: "Service",
    metadata: { name, namespace: i.namespace, labels },
    spec: {
      clusterIP: "None",
      publishNotReadyAddresses: true,
      selector: { "gpucheck.dev/run": i.names.runId, "gpucheck.dev/test": i.names.testLabel, ...(unit !== undefined && { [LABEL_UNIT]: unitLabel(unit) }) },
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

/** an Indexed Job of `count` rank pods whose rank 0 `<name>-0.<name>` (the Service of that name) is MASTER_ADDR */
function rankJob(i: ManifestInput, name: string, count: number, labels: Record<string, string>, nodes?: string[]): V1Job & Manifest {
  const template = podTemplate({
    names: i.names,
    settings: i.settings,
    image: i.image,
    launch: i.launch,
    labels,
    gpusPerNode: i.test.gpusPerNode,
    ranksPerNode: i.test.ranksPerNode,
    worldSize: count * i.test.ranksPerNode,
    nodeRank: "$(JOB_COMPLETION_INDEX)",
    master: { addr: `${name}-0.${name}.${i.namespace}.svc`, port: i.settings.masterPort },
    subdomain: name,
    ...(nodes && { nodes }),
  });
  return job(i, name, count, template, labels);
}

export function indexedJob(i: ManifestInput): V1Job & Manifest {
  const labels = runLabels(i.names, i.settings.labels);
  return rankJob(i, i.names.base, i.test.nodes, labels);
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
    nodes: [node],
  });
  const j = job(i, perNodeJobName(i.names, node), 1, template, labels);
  return { ...j, metadata: { ...j.metadata, annotations: { [ANNOTATION_NODE]: node } } };
}

/**
 * The units a test runs as Jobs of their own beside each other: an isolating round's groups of
 * nodes. Undefined for per-node mode and the one whole-cluster unit, which keep their own shapes.
 */
export function groupsOf(test: Pick<TestToRender, "perNode" | "units">): PlannedUnit[] | undefined {
  const units = test.units;
  if (test.perNode || !units?.length || (units.length === 1 && units[0]!.name === "all")) return undefined;
  return units;
}

/** one unit of a round: its own Service and Indexed Job, so its rendezvous and verdict are its own */
export function groupObjects(i: ManifestInput, unit: PlannedUnit, index: number): Manifest[] {
  const name = groupName(i.names, index);
  const labels = { ...runLabels(i.names, i.settings.labels), [LABEL_UNIT]: unitLabel(unit.name) };
  return [headlessService(i, name, unit.name), rankJob(i, name, unit.nodes.length, labels, unit.nodes)];
}

/** the load-time refusal (lib/load/pattern.ts) and the render-time one, for a `--platform k8s` the suite did not name, say the same */
export const MODE_REFUSES_GROUPS = (mode: string) => `mode "${mode}" cannot: use mode: indexed-job for it`;

/** the node name `gpucheck plan` shows for per-node Jobs (real names come from the API at run time) */
export const PLAN_NODE = "each-matching-node";

/** everything one test creates; per-node tests need the node list, which only run() has */
export function buildManifests(i: ManifestInput, nodes: string[] = i.settings.nodes ?? [PLAN_NODE]): Manifest[] {
  if (i.test.perNode) return [configMap(i), ...nodes.map((n) => perNodeJob(i, n))];
  const groups = groupsOf(i.test);
  if (groups) {
    // the Kubeflow operators own their pods' rendezvous and naming; a round's groups need ours
    if (i.settings.mode !== "indexed-job") {
      throw new SuiteError(`k8s: test "${i.test.name}" runs groups of nodes side by side (an isolating pattern), which ${MODE_REFUSES_GROUPS(i.settings.mode)}`);
    }
    return [configMap(i), ...groups.flatMap((g, k) => groupObjects(i, g, k))];
  }
  switch (i.settings.mode) {
    case "indexed-job":
      return [configMap(i), headlessService(i), indexedJob(i)];
    case "pytorchjob":
      return [configMap(i), pytorchJob(i)];
    case "mpijob":
      return [configMap(i), mpiJob(i)];
  }
}
