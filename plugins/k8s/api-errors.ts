// API failures → messages that say what to do. The API server answers errors with a Status object
// ({kind: "Status", code, reason, message}); the typed client wraps it in an ApiException.
import { PlatformError } from "../../lib/core/errors.ts";

export interface ApiStatus {
  code: number;
  reason?: string;
  message?: string;
}

export interface ApiAction {
  verb: "create" | "get" | "list" | "watch" | "delete";
  /** resource[.group] as RBAC names it: "jobs.batch", "pods/log", "configmaps" */
  resource: string;
  namespace?: string;
  name?: string;
}

export const RBAC_FILE = "deploy/k8s/rbac.yaml";

/** the Status inside an ApiException (body as text or object), or from a raw response body */
export function statusOf(e: unknown): ApiStatus | undefined {
  const err = e as { code?: unknown; body?: unknown };
  if (typeof err?.code !== "number") return undefined;
  let body = err.body;
  if (typeof body === "string") {
    const text = body;
    try {
      body = JSON.parse(text);
    } catch {
      return { code: err.code, message: text.trim() || undefined };
    }
  }
  const s = body as { reason?: string; message?: string } | undefined;
  return { code: err.code, reason: s?.reason, message: s?.message };
}

export async function statusOfResponse(res: Response): Promise<ApiStatus> {
  const text = await res.text().catch(() => "");
  try {
    const s = JSON.parse(text) as { reason?: string; message?: string };
    return { code: res.status, reason: s.reason, message: s.message };
  } catch {
    return { code: res.status, message: text.trim() || res.statusText };
  }
}

function where(a: ApiAction): string {
  const obj = a.name ? ` "${a.name}"` : "";
  return `${a.verb} ${a.resource}${obj}${a.namespace ? ` in namespace "${a.namespace}"` : ""}`;
}

/** a PlatformError naming the verb, the resource and the fix */
export function apiError(e: unknown, a: ApiAction, server: string): PlatformError {
  if (e instanceof PlatformError) {
    // the client library prefixes its own words ("Failed to fetch resource metadata …: ") to errors
    const i = e.message.indexOf("k8s: ");
    return i > 0 ? new PlatformError(e.message.slice(i), { cause: e }) : e;
  }
  const s = statusOf(e);
  if (!s) return new PlatformError(`k8s: cannot ${where(a)}: ${(e as Error)?.message ?? String(e)}`, { cause: e });
  return errorFromStatus(s, a, server);
}

export function errorFromStatus(s: ApiStatus, a: ApiAction, server: string): PlatformError {
  const said = s.message ? `: ${s.message}` : "";
  switch (s.code) {
    case 401:
      return new PlatformError(`k8s: ${server} rejected the credentials (401 Unauthorized) on ${where(a)}${said}: log in again or refresh the kubeconfig's token`);
    case 403:
      return new PlatformError(
        `k8s: forbidden to ${where(a)}${said}: gpucheck's service account or user needs the Role in ${RBAC_FILE} (kubectl apply -n ${a.namespace ?? "<namespace>"} -f ${RBAC_FILE})`,
      );
    case 404:
      return new PlatformError(`k8s: cannot ${where(a)}: not found${said}${a.namespace && a.verb === "create" ? ` (does namespace "${a.namespace}" exist?)` : ""}`);
    case 409:
      return new PlatformError(
        `k8s: cannot ${where(a)}: it already exists${said}; gpucheck never replaces objects it did not create: delete it (kubectl delete -n ${a.namespace} ${a.resource.split(".")[0]} ${a.name}) or run again`,
      );
    case 422:
      return new PlatformError(`k8s: the API server refused to ${where(a)} (422 Invalid)${said}`);
    default:
      return new PlatformError(`k8s: cannot ${where(a)}: HTTP ${s.code}${s.reason ? ` ${s.reason}` : ""}${said}`);
  }
}
