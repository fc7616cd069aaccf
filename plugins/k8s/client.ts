// The one door to the API server. @kubernetes/client-node brings kubeconfig parsing, every auth
// method (client certificates, tokens, exec plugins such as `aws eks get-token`, OIDC) and the
// typed APIs; but it talks through undici's `dispatcher`, which Bun's fetch ignores, so the
// cluster's CA and client certificate would be silently dropped (SELF_SIGNED_CERT_IN_CHAIN on
// every real cluster). The transport below hands them to Bun's fetch as its `tls` option instead,
// and the typed APIs use it through the generated client's `httpApi` hook.
import type { CoreV1Api, KubeConfig, KubernetesObjectApi, RequestContext } from "@kubernetes/client-node";
import { PlatformError } from "../../lib/core/errors.ts";
import type { LoadedConfig } from "./kubeconfig.ts";

type ClientModule = typeof import("@kubernetes/client-node");

export interface Kube {
  server: string;
  context: string;
  /** where the credentials came from, for messages */
  source: string;
  namespace: string;
  objects: KubernetesObjectApi;
  core: CoreV1Api;
  /** an authenticated request to an API path (watch and log streams, discovery) */
  request(path: string, init?: { method?: string; signal?: AbortSignal; body?: string; headers?: Record<string, string> }): Promise<Response>;
}

interface Tls {
  ca?: Buffer;
  cert?: Buffer;
  key?: Buffer;
  rejectUnauthorized?: boolean;
  serverName?: string;
}

type HttpsOptions = { ca?: Buffer; cert?: Buffer; key?: Buffer; rejectUnauthorized?: boolean; servername?: string; headers?: Record<string, string>; auth?: string };

async function credentials(kc: KubeConfig): Promise<{ tls: Tls; headers: Record<string, string> }> {
  const o: HttpsOptions = {};
  // runs the user's auth provider (exec plugin, token file, OIDC refresh) each time: tokens expire.
  // applyOptions (private in the typings, stable in the pinned 2.0.1) fills TLS material and headers;
  // the public applyToHTTPSOptions also builds an https.Agent and rejects http:// servers.
  const apply = (kc as unknown as { applyOptions?: (o: HttpsOptions) => Promise<void> }).applyOptions;
  if (apply) await apply.call(kc, o);
  else await kc.applyToHTTPSOptions(o as never);
  const headers: Record<string, string> = { ...(o.headers ?? {}) };
  if (o.auth) headers.Authorization = `Basic ${Buffer.from(o.auth).toString("base64")}`;
  const tls: Tls = {};
  if (o.ca) tls.ca = o.ca;
  if (o.cert) tls.cert = o.cert;
  if (o.key) tls.key = o.key;
  if (o.rejectUnauthorized !== undefined) tls.rejectUnauthorized = o.rejectUnauthorized;
  if (o.servername) tls.serverName = o.servername;
  return { tls, headers };
}

export function connect(k: ClientModule, loaded: LoadedConfig, namespace: string): Kube {
  const { kc } = loaded;
  const cluster = kc.getCurrentCluster()!;
  const server = cluster.server.replace(/\/+$/, "");
  const proxy = cluster.proxyUrl;

  const send = async (url: string, init: { method?: string; headers?: Record<string, string>; body?: unknown; signal?: AbortSignal }) => {
    const { tls, headers } = await credentials(kc);
    const opts = { ...init, headers: { ...headers, ...(init.headers ?? {}) }, tls, ...(proxy ? { proxy } : {}) };
    try {
      return await fetch(url, opts as RequestInit);
    } catch (e) {
      if ((e as Error).name === "AbortError" || init.signal?.aborted) throw e;
      const msg = (e as Error).message;
      const hint = /certificate|CERT|TLS/.test(msg) ? " (is the kubeconfig's certificate-authority the cluster's CA? does the server want a client certificate?)" : "";
      throw new PlatformError(`k8s: cannot reach the API server ${server} (context "${loaded.context}" from ${loaded.source}): ${msg}${hint}`, { cause: e });
    }
  };

  const httpApi = k.wrapHttpLibrary({
    async send(req: RequestContext) {
      const res = await send(req.getUrl(), {
        method: req.getHttpMethod().toString(),
        headers: req.getHeaders(),
        body: req.getBody() as never,
        signal: req.getSignal() as AbortSignal | undefined,
      });
      const headers: Record<string, string> = {};
      res.headers.forEach((v, name) => (headers[name] = v));
      const body = {
        text: () => res.text(),
        binary: async () => Buffer.from(await res.arrayBuffer()),
        stream: () => res.body,
      };
      return new k.ResponseContext(res.status, headers, body as never);
    },
  });
  // no authMethods: `send` adds the credentials itself (the library's own would build an undici
  // dispatcher, and refuses plain http, which `kubectl proxy` serves)
  const config = k.createConfiguration({ baseServer: new k.ServerConfiguration(server, {}), httpApi });
  return {
    server,
    context: loaded.context,
    source: loaded.source,
    namespace,
    objects: new k.KubernetesObjectApi(config),
    core: new k.CoreV1Api(config),
    request: (path, init = {}) => send(server + path, init),
  };
}
