// `gpucheck health --k8s-condition`: the health verdict as the Node condition GPUCheckHealthy, set
// from a pod on that node through the API server with the pod's service-account token (in-cluster:
// KUBERNETES_SERVICE_HOST/PORT, /var/run/secrets/kubernetes.io/serviceaccount), by a strategic-merge
// patch of nodes/<node>/status (conditions merge on "type", so other conditions stay). The role it
// needs is get and patch on nodes/status, nothing else (lib/health/k8s-manifest.ts renders it).
// lastTransitionTime moves only when the status flips, as the kubelet's own conditions do.
import { readFileSync } from "node:fs";
import { join } from "node:path";

export const CONDITION_TYPE = "GPUCheckHealthy";
export const SERVICE_ACCOUNT_DIR = "/var/run/secrets/kubernetes.io/serviceaccount";
/** the Node API's condition message is free text; kept short so `kubectl describe node` stays readable */
const MESSAGE_MAX = 1024;

export interface ApiTarget {
  /** https://<KUBERNETES_SERVICE_HOST>:<PORT> in a pod; a test's fake API server otherwise */
  url: string;
  token: string;
  /** the cluster CA (PEM); absent for a plain-http test server */
  ca?: string;
}

export function inCluster(env: NodeJS.ProcessEnv = process.env, dir = SERVICE_ACCOUNT_DIR): ApiTarget {
  const host = env.KUBERNETES_SERVICE_HOST;
  const port = env.KUBERNETES_SERVICE_PORT ?? "443";
  if (!host)
    throw new Error(
      "--k8s-condition: KUBERNETES_SERVICE_HOST is not set: it runs in a pod (the DaemonSet of `gpucheck plan quick --platform k8s --health`), where Kubernetes sets it",
    );
  const read = (f: string) => {
    try {
      return readFileSync(join(dir, f), "utf8").trim();
    } catch (e) {
      throw new Error(
        `--k8s-condition: could not read the service-account ${f} at ${join(dir, f)} (${(e as NodeJS.ErrnoException).code ?? (e as Error).message}): mount the pod's service-account token (automountServiceAccountToken)`,
      );
    }
  };
  return { url: `https://${host.includes(":") ? `[${host}]` : host}:${port}`, token: read("token"), ca: read("ca.crt") };
}

export interface NodeCondition {
  type: string;
  status: "True" | "False" | "Unknown";
  reason: string;
  message: string;
  lastHeartbeatTime: string;
  lastTransitionTime: string;
}

async function call(api: ApiTarget, method: string, path: string, body?: unknown, contentType?: string): Promise<unknown> {
  const res = await fetch(`${api.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${api.token}`, accept: "application/json", ...(contentType && { "content-type": contentType }) },
    ...(body !== undefined && { body: JSON.stringify(body) }),
    ...(api.ca && { tls: { ca: api.ca } }),
  } as RequestInit);
  const text = await res.text();
  if (!res.ok) {
    let why = text.trim().split("\n")[0] ?? "";
    try {
      why = (JSON.parse(text) as { message?: string }).message ?? why;
    } catch {}
    throw new Error(`--k8s-condition: ${method} ${path}: HTTP ${res.status}: ${why}`);
  }
  return JSON.parse(text);
}

/**
 * Sets GPUCheckHealthy on `node`: True with reason Passed, or False with reason Failed and the first
 * failures as its message. Returns the condition as the API server stored it.
 */
export async function setHealthCondition(api: ApiTarget, node: string, failures: string[], now = new Date()): Promise<NodeCondition> {
  const path = `/api/v1/nodes/${encodeURIComponent(node)}/status`;
  const current = (await call(api, "GET", path)) as { status?: { conditions?: NodeCondition[] } };
  const before = current.status?.conditions?.find((c) => c.type === CONDITION_TYPE);
  const status = failures.length ? "False" : "True";
  const stamp = now.toISOString().replace(/\.\d+Z$/, "Z");
  let message = failures.length ? `${failures.length} failure${failures.length === 1 ? "" : "s"}: ${failures.join("; ")}` : "gpucheck health passed";
  if (message.length > MESSAGE_MAX) message = `${message.slice(0, MESSAGE_MAX - 1)}…`;
  const condition: NodeCondition = {
    type: CONDITION_TYPE,
    status,
    reason: failures.length ? "GPUCheckFailed" : "GPUCheckPassed",
    message,
    lastHeartbeatTime: stamp,
    lastTransitionTime: before?.status === status ? before.lastTransitionTime : stamp,
  };
  const patched = (await call(api, "PATCH", path, { status: { conditions: [condition] } }, "application/strategic-merge-patch+json")) as {
    status?: { conditions?: NodeCondition[] };
  };
  const stored = patched.status?.conditions?.find((c) => c.type === CONDITION_TYPE);
  if (!stored || stored.status !== status)
    throw new Error(`--k8s-condition: the API server answered the patch of ${path} without the ${CONDITION_TYPE} condition set to ${status}`);
  return stored;
}

export const conditionLine = (node: string, c: NodeCondition) => `Node ${node}: condition ${CONDITION_TYPE}=${c.status} (${c.reason})`;
