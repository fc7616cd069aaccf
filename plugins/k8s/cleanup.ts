// Delete what a run created, found by its label rather than by remembered names, so objects from a
// create that half-failed, or pods a controller made, go too. Jobs are deleted with
// propagationPolicy Background: batch/v1's default for API clients orphans the pods, which would
// then run on, holding the GPUs. Nothing without the run's label is ever touched.
import type { KubernetesObject } from "@kubernetes/client-node";
import { apiError } from "./api-errors.ts";
import type { Kube } from "./client.ts";
import { LABEL_RUN } from "./names.ts";
import { sleep } from "./watch.ts";

export interface Kind {
  apiVersion: string;
  kind: string;
  /** RBAC's name for messages: "jobs.batch" */
  resource: string;
}

export const POD: Kind = { apiVersion: "v1", kind: "Pod", resource: "pods" };

export function resourceName(apiVersion: string, kind: string): string {
  const group = apiVersion.includes("/") ? `.${apiVersion.split("/")[0]}` : "";
  const plural = kind.toLowerCase().endsWith("s") ? `${kind.toLowerCase()}es` : `${kind.toLowerCase()}s`;
  return `${plural}${group}`;
}

export interface CleanupReport {
  deleted: string[];
  errors: string[];
  /** pods still terminating when we stopped waiting */
  lingering: string[];
}

/** deletes every object of `kinds` (and every pod) labelled with the run; waits up to waitMs for pods to go */
export function deleteRun(kube: Kube, runId: string, kinds: Kind[], waitMs = 15_000): Promise<CleanupReport> {
  return deleteLabelled(kube, `${LABEL_RUN}=${runId}`, kinds, waitMs);
}

/** the same for what `selector` matches: one per-node unit's Job and pod (gpucheck.dev/run and gpucheck.dev/unit) */
export async function deleteLabelled(kube: Kube, selector: string, kinds: Kind[], waitMs = 15_000): Promise<CleanupReport> {
  const report: CleanupReport = { deleted: [], errors: [], lingering: [] };
  // owners first, so controllers do not recreate what we delete; pods last
  for (const k of [...kinds.filter((k) => k.kind !== "Pod"), POD]) {
    let items: KubernetesObject[];
    try {
      items = (await kube.objects.list(k.apiVersion, k.kind, kube.namespace, undefined, undefined, undefined, undefined, selector)).items;
    } catch (e) {
      report.errors.push(apiError(e, { verb: "list", resource: k.resource, namespace: kube.namespace }, kube.server).message);
      continue;
    }
    for (const item of items) {
      const name = item.metadata?.name ?? "";
      if (item.metadata?.deletionTimestamp) continue;
      try {
        const spec = { apiVersion: k.apiVersion, kind: k.kind, metadata: { name, namespace: kube.namespace } };
        await kube.objects.delete(spec, undefined, undefined, undefined, undefined, "Background");
        report.deleted.push(`${k.resource}/${name}`);
      } catch (e) {
        const err = apiError(e, { verb: "delete", resource: k.resource, namespace: kube.namespace, name }, kube.server);
        if (!/not found/.test(err.message)) report.errors.push(err.message);
      }
    }
  }
  const until = Date.now() + waitMs;
  for (;;) {
    let left: string[];
    try {
      left = (await kube.objects.list("v1", "Pod", kube.namespace, undefined, undefined, undefined, undefined, selector)).items.map((p) => p.metadata?.name ?? "");
    } catch {
      break;
    }
    if (!left.length || Date.now() > until) {
      report.lingering = left;
      break;
    }
    await sleep(250);
  }
  return report;
}

/** for --keep and for failed cleanups: the command that finishes the job by hand */
export function cleanupCommand(kube: Kube, runId: string, kinds: Kind[]): string {
  const res = [...new Set([...kinds.map((k) => k.resource), "pods"])].join(",");
  return `kubectl --context ${kube.context} -n ${kube.namespace} delete ${res} -l ${LABEL_RUN}=${runId}`;
}
