// Where the credentials come from, in kubectl's order: $KUBECONFIG (a ':'-separated list, merged),
// ~/.kube/config, then the pod's service account when gpucheck itself runs in the cluster.
import { existsSync } from "node:fs";
import { homedir } from "node:os";
import { delimiter, join } from "node:path";
import type { KubeConfig } from "@kubernetes/client-node";
import { PlatformError } from "../../lib/core/errors.ts";

type ClientModule = typeof import("@kubernetes/client-node");

export interface KubeConfigSource {
  env?: Record<string, string | undefined>;
  home?: string;
  /** prefix of /var/run/secrets/kubernetes.io/serviceaccount (tests point it at a temp dir) */
  inClusterRoot?: string;
  context?: string;
}

const SA_DIR = "/var/run/secrets/kubernetes.io/serviceaccount";

export interface LoadedConfig {
  kc: KubeConfig;
  /** where it came from, for messages: a path, or "in-cluster service account" */
  source: string;
  context: string;
  /** the context's namespace, if it names one */
  namespace?: string;
}

export function loadKubeConfig(k: ClientModule, src: KubeConfigSource = {}): LoadedConfig {
  const env = src.env ?? process.env;
  const kc = new k.KubeConfig();
  let source: string;
  const list = (env.KUBECONFIG ?? "").split(delimiter).filter(Boolean);
  const home = join(src.home ?? homedir(), ".kube", "config");
  const saRoot = src.inClusterRoot ?? "";
  try {
    if (list.length) {
      const present = list.filter((f) => existsSync(f));
      if (!present.length) throw new PlatformError(`k8s: KUBECONFIG names no existing file: ${list.join(delimiter)}`);
      kc.loadFromFile(present[0]!);
      for (const f of present.slice(1)) {
        const more = new k.KubeConfig();
        more.loadFromFile(f);
        kc.mergeConfig(more, true);
      }
      source = present.join(delimiter);
    } else if (existsSync(home)) {
      kc.loadFromFile(home);
      source = home;
    } else if (env.KUBERNETES_SERVICE_HOST && existsSync(`${saRoot}${SA_DIR}/token`)) {
      withEnv(env, () => kc.loadFromCluster(saRoot));
      source = "in-cluster service account";
    } else {
      throw new PlatformError("k8s: no Kubernetes credentials: set KUBECONFIG, create ~/.kube/config, or run gpucheck in a pod with a service account");
    }
  } catch (e) {
    if (e instanceof PlatformError) throw e;
    throw new PlatformError(`k8s: cannot read the kubeconfig: ${(e as Error).message}`, { cause: e });
  }
  if (src.context) {
    const names = kc.getContexts().map((c) => c.name);
    if (!names.includes(src.context)) {
      throw new PlatformError(`k8s: context "${src.context}" is not in ${source}: it has ${names.map((n) => `"${n}"`).join(", ") || "no contexts"}`);
    }
    kc.setCurrentContext(src.context);
  }
  const ctx = kc.getContextObject(kc.getCurrentContext());
  if (!ctx || !kc.getCurrentCluster()) {
    throw new PlatformError(`k8s: ${source} has no current context with a cluster: pick one with --context`);
  }
  return { kc, source, context: ctx.name, namespace: ctx.namespace?.trim() || undefined };
}

/** loadFromCluster reads process.env; tests hand in their own */
function withEnv(env: Record<string, string | undefined>, f: () => void): void {
  if (env === process.env) return f();
  const saved = { host: process.env.KUBERNETES_SERVICE_HOST, port: process.env.KUBERNETES_SERVICE_PORT };
  process.env.KUBERNETES_SERVICE_HOST = env.KUBERNETES_SERVICE_HOST;
  process.env.KUBERNETES_SERVICE_PORT = env.KUBERNETES_SERVICE_PORT;
  try {
    f();
  } finally {
    for (const [k, v] of [
      ["KUBERNETES_SERVICE_HOST", saved.host],
      ["KUBERNETES_SERVICE_PORT", saved.port],
    ] as const) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
}
