// An in-process Kubernetes API server for tests: the real paths, verbs, object shapes and Status
// errors, list+watch with resourceVersion (and 410 Gone), pods/log with follow, DELETE with
// propagationPolicy, a status subresource's strategic-merge PATCH (conditions merged on type), RBAC-style 403s, bearer tokens, and TLS with client certificates. Objects are
// validated against the Kubernetes OpenAPI schemas (kubernetes-models) on create, as the real
// server does. The controllers (controllers.ts) and the kubelet (kubelet.ts) make it move.
import { createServer as createHttp, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { createServer as createHttps } from "node:https";
import type { AddressInfo } from "node:net";
import { Job } from "kubernetes-models/batch/v1/Job";
import { ConfigMap } from "kubernetes-models/v1/ConfigMap";
import { Pod } from "kubernetes-models/v1/Pod";
import { Service } from "kubernetes-models/v1/Service";
import { alreadyExists, discovery, findResource, forbidden, notFound, status, type Resource } from "./resources.ts";
import { parseSelector, type Obj, type Store } from "./store.ts";

export interface ApiOptions {
  store: Store;
  /** serve pytorchjobs/mpijobs (as if the Kubeflow operators were installed) */
  crds: boolean;
  /** required bearer token; none = anyone */
  token?: string;
  /** the user named in 403 messages */
  user: string;
  /** RBAC: false → 403 Forbidden */
  authorize(verb: string, r: { group: string; plural: string; sub?: string }, ns: string | undefined): boolean;
  logs(ns: string, pod: string, container: string | null, res: ServerResponse, q: URLSearchParams): void;
  /** delete with GC (propagationPolicy) */
  remove(r: Resource, ns: string, name: string, policy: string | undefined): Obj | undefined;
  /** clientCerts: false = TLS without demanding a client certificate (service-account tokens) */
  tls?: { key: string; cert: string; ca: string; clientCerts?: boolean };
  /** a connection reset: "before" the request is handled, or (a create) "after" it landed, its answer lost */
  drop?(q: RecordedRequest): "before" | "after" | undefined;
}

export interface RecordedRequest {
  method: string;
  path: string;
  query: Record<string, string>;
}

const SCHEMAS: Record<string, new (d: never) => { validate(): void }> = { Job, ConfigMap, Pod, Service };

function send(res: ServerResponse, code: number, body: unknown): void {
  res.writeHead(code, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
}

async function readBody(req: IncomingMessage): Promise<string> {
  let s = "";
  for await (const c of req) s += c;
  return s;
}

interface Route {
  r: Resource;
  ns: string | undefined;
  name?: string;
  sub?: string;
}

function route(path: string, crds: boolean): Route | { discovery: unknown } | undefined {
  const p = path.split("/").filter(Boolean).map(decodeURIComponent);
  let group = "";
  let version: string;
  let rest: string[];
  if (p[0] === "api") [version, rest] = [p[1]!, p.slice(2)];
  else if (p[0] === "apis") [group, version, rest] = [p[1]!, p[2]!, p.slice(3)];
  else return undefined;
  if (!rest.length) {
    const d = discovery(group, version, crds);
    return d ? { discovery: d } : undefined;
  }
  let ns: string | undefined;
  if (rest[0] === "namespaces" && rest.length >= 3) [ns, rest] = [rest[1], rest.slice(2)];
  const r = findResource(group, version, rest[0]!, crds);
  if (!r) return undefined;
  return { r, ns, name: rest[1], sub: rest[2] };
}

export function startApi(o: ApiOptions): Promise<{ server: Server; url: string; requests: RecordedRequest[]; watches: Set<ServerResponse> }> {
  const requests: RecordedRequest[] = [];
  const watches = new Set<ServerResponse>();
  const handler = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url!, "http://x");
    const q = url.searchParams;
    const recorded = { method: req.method!, path: url.pathname, query: Object.fromEntries(q) };
    requests.push(recorded);
    const drop = o.drop?.(recorded);
    if (drop === "before") return void req.socket.destroy();
    if (o.token && req.headers.authorization !== `Bearer ${o.token}`) return send(res, 401, status(401, "Unauthorized", "Unauthorized"));
    if (url.pathname === "/api") return send(res, 200, { kind: "APIVersions", versions: ["v1"] });
    const rt = route(url.pathname, o.crds);
    if (!rt) return send(res, 404, status(404, "NotFound", "the server could not find the requested resource"));
    if ("discovery" in rt) return send(res, 200, rt.discovery);
    const { r, ns, name, sub } = rt;
    const watch = q.get("watch") === "1" || q.get("watch") === "true";
    const verb =
      ({ GET: name ? "get" : watch ? "watch" : "list", POST: "create", DELETE: "delete", PUT: "update", PATCH: "patch" } as Record<string, string>)[req.method!] ?? "get";
    if (!o.authorize(verb, { group: r.group, plural: r.plural, sub }, ns)) return send(res, 403, forbidden(o.user, verb, { ...r, sub }, ns, name));
    const nsKey = r.namespaced ? (ns ?? "") : "";

    if (sub === "log" && r.plural === "pods") return o.logs(nsKey, name!, q.get("container"), res, q);
    if (req.method === "GET" && name) {
      const obj = o.store.get(r.plural, nsKey, name);
      return obj ? send(res, 200, obj) : send(res, 404, notFound(r, name));
    }
    if (req.method === "GET" && watch) {
      watches.add(res);
      res.on("close", () => watches.delete(res));
      return serveWatch(o, r, ns, q, req, res);
    }
    if (req.method === "GET") {
      const match = parseSelector(q.get("labelSelector"));
      const fields = fieldSelector(q.get("fieldSelector"));
      const items = o.store.list(r.plural, r.namespaced ? ns : undefined, (x) => match(x.metadata.labels) && fields(x));
      return send(res, 200, { kind: `${r.kind}List`, apiVersion: r.group ? `${r.group}/${r.version}` : r.version, metadata: { resourceVersion: String(o.store.rv) }, items });
    }
    if (req.method === "POST") {
      const obj = JSON.parse(await readBody(req)) as Obj;
      if (r.namespaced && obj.metadata?.namespace && obj.metadata.namespace !== ns) {
        return send(res, 400, status(400, "BadRequest", "the namespace of the provided object does not match the namespace sent on the request"));
      }
      const Schema = SCHEMAS[r.kind];
      if (Schema) {
        try {
          new Schema(obj as never).validate();
        } catch (e) {
          return send(res, 422, status(422, "Invalid", `${r.kind} "${obj.metadata?.name}" is invalid: ${(e as Error).message}`));
        }
      }
      const created = o.store.create(r.plural, nsKey, obj);
      if (drop === "after") return void req.socket.destroy();
      return created ? send(res, 201, created) : send(res, 409, alreadyExists(r, obj.metadata.name));
    }
    // a status subresource patched as `kubectl patch --subresource=status` and node agents do it: a
    // strategic-merge patch, whose lists of conditions merge on "type" (the Node API's patchMergeKey)
    if (req.method === "PATCH" && name && sub === "status") {
      const type = (req.headers["content-type"] ?? "").split(";")[0]!.trim();
      if (type !== "application/strategic-merge-patch+json")
        return send(res, 415, status(415, "UnsupportedMediaType", `the fake patches a status with application/strategic-merge-patch+json only, got "${type}"`));
      const patch = JSON.parse(await readBody(req)) as { status?: Record<string, unknown> };
      const updated = o.store.update(r.plural, nsKey, name, (x) => {
        const st = ((x as { status?: Record<string, unknown> }).status ??= {});
        for (const [k, v] of Object.entries(patch.status ?? {})) {
          if (k !== "conditions" || !Array.isArray(v)) {
            st[k] = v;
            continue;
          }
          const conditions = [...((st.conditions as Array<{ type: string }> | undefined) ?? [])];
          for (const c of v as Array<{ type: string }>) {
            const at = conditions.findIndex((e) => e.type === c.type);
            if (at >= 0) conditions[at] = { ...conditions[at], ...c };
            else conditions.push(c);
          }
          st.conditions = conditions;
        }
      });
      return updated ? send(res, 200, updated) : send(res, 404, notFound(r, name));
    }
    if (req.method === "DELETE" && name) {
      const body = await readBody(req);
      const policy = q.get("propagationPolicy") ?? (body ? (JSON.parse(body) as { propagationPolicy?: string }).propagationPolicy : undefined);
      const gone = o.remove(r, nsKey, name, policy);
      return gone ? send(res, 200, gone) : send(res, 404, notFound(r, name));
    }
    return send(res, 405, status(405, "MethodNotAllowed", `${req.method} is not supported by the fake`));
  };
  const wrapped = (req: IncomingMessage, res: ServerResponse) => {
    handler(req, res).catch((e) => send(res, 500, status(500, "InternalError", String((e as Error).stack ?? e))));
  };
  const server = o.tls
    ? createHttps({ key: o.tls.key, cert: o.tls.cert, ca: o.tls.ca, requestCert: o.tls.clientCerts !== false, rejectUnauthorized: o.tls.clientCerts !== false }, wrapped)
    : createHttp(wrapped);
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () => {
      const port = (server.address() as AddressInfo).port;
      resolve({ server, url: `${o.tls ? "https" : "http"}://127.0.0.1:${port}`, requests, watches });
    }),
  );
}

/** field selectors as the API takes them for simple paths: involvedObject.name=x,metadata.name!=y */
function fieldSelector(sel: string | null): (o: Obj) => boolean {
  if (!sel) return () => true;
  const terms = sel.split(",").map((t) => /^([^!=]+)(!=|==?)(.*)$/.exec(t)!);
  const get = (o: Obj, path: string) => path.split(".").reduce<unknown>((v, k) => (v as Record<string, unknown> | undefined)?.[k], o);
  return (o) => terms.every(([, path, op, want]) => (String(get(o, path!) ?? "") === want) === (op !== "!="));
}

/** a watch: replay from resourceVersion (or ADDED for all, from "0"/none), then stream live */
function serveWatch(o: ApiOptions, r: Resource, ns: string | undefined, q: URLSearchParams, req: IncomingMessage, res: ServerResponse): void {
  const match = parseSelector(q.get("labelSelector"));
  const mine = (e: { resource: string; namespace: string; object: Obj }) =>
    e.resource === r.plural && (!r.namespaced || ns === undefined || e.namespace === ns) && match(e.object.metadata.labels);
  res.writeHead(200, { "content-type": "application/json", "transfer-encoding": "chunked" });
  const write = (type: string, object: unknown) => res.write(`${JSON.stringify({ type, object })}\n`);
  const from = q.get("resourceVersion");
  if (!from || from === "0") {
    for (const obj of o.store.list(r.plural, r.namespaced ? ns : undefined, (x) => match(x.metadata.labels))) write("ADDED", obj);
  } else {
    const past = o.store.since(Number(from));
    if (past === "gone") {
      write("ERROR", status(410, "Expired", `too old resource version: ${from} (${o.store.rv})`));
      res.end();
      return;
    }
    for (const e of past) if (mine(e)) write(e.type, e.object);
  }
  const unsubscribe = o.store.subscribe((e) => {
    if (mine(e)) write(e.type, e.object);
  });
  const seconds = Number(q.get("timeoutSeconds") ?? 0);
  const timer = seconds > 0 ? setTimeout(() => res.end(), seconds * 1000) : undefined;
  const stop = () => {
    clearTimeout(timer);
    unsubscribe();
  };
  res.on("close", stop);
  req.on("close", stop);
}
