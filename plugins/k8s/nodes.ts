// Per-node mode's node list, and the Kubeflow CRD check. Per-node mode is the only part of gpucheck
// that reads nodes (a cluster-scoped resource): see the ClusterRole in deploy/k8s/rbac.yaml.
import type { V1Node } from "@kubernetes/client-node";
import { PlatformError } from "../../lib/core/errors.ts";
import { apiError, errorFromStatus, statusOfResponse } from "./api-errors.ts";
import type { Kube } from "./client.ts";

export interface NodeChoice {
  /** Ready and schedulable: each gets its own Job and verdict */
  usable: string[];
  /** matched the selector but cannot run pods: a "skipped" verdict with the reason */
  skipped: Array<{ node: string; reason: string }>;
}

/** pure: which matching nodes can take a pod, and why the others cannot */
export function chooseNodes(nodes: V1Node[]): NodeChoice {
  const out: NodeChoice = { usable: [], skipped: [] };
  for (const n of nodes) {
    const name = n.metadata?.name ?? "?";
    const ready = (n.status?.conditions ?? []).find((c) => c.type === "Ready");
    if (n.spec?.unschedulable) out.skipped.push({ node: name, reason: "node is cordoned (spec.unschedulable)" });
    else if (ready?.status !== "True")
      out.skipped.push({ node: name, reason: `node is not Ready${ready?.message ? `: ${ready.message}` : ready ? ` (${ready.reason ?? ready.status})` : ""}` });
    else out.usable.push(name);
  }
  out.usable.sort();
  return out;
}

/** pure: `platform.k8s.nodes` set, per-node mode runs on those alone; one the API lacks is skipped, not silently dropped */
export function onlyNamed(choice: NodeChoice, names: string[] | undefined): NodeChoice {
  if (!names) return choice;
  const known = new Set([...choice.usable, ...choice.skipped.map((s) => s.node)]);
  return {
    usable: choice.usable.filter((n) => names.includes(n)),
    skipped: [
      ...choice.skipped.filter((s) => names.includes(s.node)),
      ...names.filter((n) => !known.has(n)).map((node) => ({ node, reason: "no such node matches nodeSelector (named in platform.k8s.nodes)" })),
    ],
  };
}

export function selectorString(sel: Record<string, string>): string {
  return Object.entries(sel)
    .map(([k, v]) => `${k}=${v}`)
    .join(",");
}

export async function listNodes(kube: Kube, nodeSelector: Record<string, string>): Promise<NodeChoice> {
  const labelSelector = selectorString(nodeSelector);
  let nodes: V1Node[];
  try {
    nodes = (await kube.core.listNode({ labelSelector: labelSelector || undefined })).items;
  } catch (e) {
    const err = apiError(e, { verb: "list", resource: "nodes" }, kube.server);
    throw new PlatformError(`${err.message}${/forbidden/.test(err.message) ? " (per-node mode also needs the ClusterRole gpucheck-nodes-read)" : ""}`);
  }
  if (!nodes.length) {
    throw new PlatformError(`k8s: per-node test: no node matches nodeSelector ${labelSelector ? `"${labelSelector}"` : "(none set: every node)"}`);
  }
  return chooseNodes(nodes);
}

/** true when the API server serves `plural` in group/version (discovery needs no RBAC grant) */
export async function servesResource(kube: Kube, group: string, version: string, plural: string): Promise<boolean> {
  const res = await kube.request(`/apis/${group}/${version}`);
  if (res.status === 404) return false;
  if (!res.ok) throw errorFromStatus(await statusOfResponse(res), { verb: "get", resource: `${group}/${version} discovery` }, kube.server);
  const list = (await res.json()) as { resources?: Array<{ name: string }> };
  return (list.resources ?? []).some((r) => r.name === plural);
}
