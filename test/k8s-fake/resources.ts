// The resources the fake serves, with the paths, kinds and verbs of the real API, and the Status
// objects the real API server answers errors with.
export interface Resource {
  plural: string;
  group: string;
  version: string;
  kind: string;
  namespaced: boolean;
  /** present only when the fake was started with Kubeflow CRDs */
  crd?: boolean;
}

export const RESOURCES: Resource[] = [
  { plural: "pods", group: "", version: "v1", kind: "Pod", namespaced: true },
  { plural: "configmaps", group: "", version: "v1", kind: "ConfigMap", namespaced: true },
  { plural: "services", group: "", version: "v1", kind: "Service", namespaced: true },
  { plural: "events", group: "", version: "v1", kind: "Event", namespaced: true },
  { plural: "nodes", group: "", version: "v1", kind: "Node", namespaced: false },
  { plural: "jobs", group: "batch", version: "v1", kind: "Job", namespaced: true },
  { plural: "pytorchjobs", group: "kubeflow.org", version: "v1", kind: "PyTorchJob", namespaced: true, crd: true },
  { plural: "mpijobs", group: "kubeflow.org", version: "v2beta1", kind: "MPIJob", namespaced: true, crd: true },
];

export const VERBS = ["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"];

export function status(code: number, reason: string, message: string, details?: Record<string, unknown>) {
  return { kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure", message, reason, ...(details ? { details } : {}), code };
}

export const notFound = (r: Resource, name: string) =>
  status(404, "NotFound", `${r.plural}${r.group ? `.${r.group}` : ""} "${name}" not found`, { name, group: r.group || undefined, kind: r.plural });

export const alreadyExists = (r: Resource, name: string) =>
  status(409, "AlreadyExists", `${r.plural}${r.group ? `.${r.group}` : ""} "${name}" already exists`, { name, group: r.group || undefined, kind: r.plural });

/** the RBAC authorizer's wording, e.g. for `kubectl auth can-i` mismatches */
export function forbidden(user: string, verb: string, r: { plural: string; group: string; sub?: string }, ns: string | undefined, name?: string) {
  const res = r.sub ? `${r.plural}/${r.sub}` : r.plural;
  const what = `${r.plural}${r.group ? `.${r.group}` : ""}${name ? ` "${name}"` : ""}`;
  const scope = ns ? ` in the namespace "${ns}"` : " at the cluster scope";
  return status(403, "Forbidden", `${what} is forbidden: User "${user}" cannot ${verb} resource "${res}" in API group "${r.group}"${scope}`, {
    name,
    group: r.group,
    kind: r.plural,
  });
}

export function findResource(group: string, version: string, plural: string, crds: boolean): Resource | undefined {
  return RESOURCES.find((r) => r.group === group && r.version === version && r.plural === plural && (crds || !r.crd));
}

export function discovery(group: string, version: string, crds: boolean) {
  const resources = RESOURCES.filter((r) => r.group === group && r.version === version && (crds || !r.crd));
  if (!resources.length) return undefined;
  const list = resources.flatMap((r) => [
    { name: r.plural, singularName: r.kind.toLowerCase(), namespaced: r.namespaced, kind: r.kind, verbs: VERBS },
    ...(r.plural === "pods" ? [{ name: "pods/log", singularName: "", namespaced: true, kind: "Pod", verbs: ["get"] }] : []),
  ]);
  return { kind: "APIResourceList", apiVersion: "v1", groupVersion: group ? `${group}/${version}` : version, resources: list };
}
