// Why a controller could not make the pods: PodSecurity admission, ResourceQuota, LimitRange and
// webhooks refuse pods, not Jobs, so the Job is created fine and its pods never appear; the only
// trace is a Warning event (FailedCreate) on the Job. Events are a nicety: failing to read them
// must not fail the run.
import type { CoreV1Event } from "@kubernetes/client-node";
import type { Kube } from "./client.ts";

/** "FailedCreate: Error creating: pods … is forbidden: violates PodSecurity …", newest first */
export async function latestWarning(kube: Kube, objectName: string): Promise<string | undefined> {
  const selector = encodeURIComponent(`involvedObject.name=${objectName}`);
  try {
    const res = await kube.request(`/api/v1/namespaces/${encodeURIComponent(kube.namespace)}/events?fieldSelector=${selector}`);
    if (!res.ok) return undefined;
    const items = ((await res.json()) as { items: CoreV1Event[] }).items.filter((e) => e.type === "Warning");
    const when = (e: CoreV1Event) => String(e.lastTimestamp ?? e.eventTime ?? e.metadata?.creationTimestamp ?? "");
    const last = items.sort((a, b) => when(a).localeCompare(when(b))).pop();
    return last ? `${last.reason}: ${last.message}` : undefined;
  } catch {
    return undefined;
  }
}
