// List-then-watch, as informers do: list to get the state and its resourceVersion, watch from that
// version, resume from the last version seen when the server ends the stream (it does, every
// timeoutSeconds), and list again when the version is too old (410 Gone, as a status or as an
// ERROR event), so no change is missed and none is applied twice.
import type { V1Pod } from "@kubernetes/client-node";
import { PlatformError } from "../../lib/core/errors.ts";
import { errorFromStatus, statusOfResponse } from "./api-errors.ts";
import type { Kube } from "./client.ts";

export type PodEvent = { type: "ADDED" | "MODIFIED" | "DELETED"; pod: V1Pod } | { type: "RESYNC"; pods: V1Pod[] };

export interface WatchOptions {
  labelSelector: string;
  signal: AbortSignal;
  /** server-side end of each watch request; the loop resumes from the last resourceVersion */
  timeoutSeconds?: number;
  /** give up after the API server has been unreachable this long */
  unreachableMs?: number;
  note?(message: string): void;
}

/** lines of a streamed response body */
export async function* lines(res: Response): AsyncGenerator<string> {
  const reader = res.body!.getReader();
  const dec = new TextDecoder();
  let buf = "";
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buf += dec.decode(value, { stream: true });
      let nl: number;
      while ((nl = buf.indexOf("\n")) >= 0) {
        yield buf.slice(0, nl);
        buf = buf.slice(nl + 1);
      }
    }
    buf += dec.decode();
    if (buf) yield buf;
  } finally {
    reader.releaseLock();
  }
}

/** runs until `signal` aborts; throws only when the API refuses (403…) or stays unreachable */
export async function watchPods(kube: Kube, o: WatchOptions, onEvent: (e: PodEvent) => void): Promise<void> {
  const base = `/api/v1/namespaces/${encodeURIComponent(kube.namespace)}/pods?labelSelector=${encodeURIComponent(o.labelSelector)}`;
  const action = { resource: "pods", namespace: kube.namespace } as const;
  let failingSince: number | undefined;

  const list = async (): Promise<string> => {
    const res = await kube.request(base, { signal: o.signal });
    if (!res.ok) throw errorFromStatus(await statusOfResponse(res), { ...action, verb: "list" }, kube.server);
    const body = (await res.json()) as { items: V1Pod[]; metadata: { resourceVersion: string } };
    onEvent({ type: "RESYNC", pods: body.items });
    return body.metadata.resourceVersion;
  };

  let rv: string | undefined;
  while (!o.signal.aborted) {
    try {
      rv ??= await list();
      const res = await kube.request(`${base}&watch=1&allowWatchBookmarks=true&resourceVersion=${encodeURIComponent(rv)}&timeoutSeconds=${o.timeoutSeconds ?? 60}`, {
        signal: o.signal,
      });
      if (res.status === 410) {
        rv = undefined;
        continue;
      }
      if (!res.ok) throw errorFromStatus(await statusOfResponse(res), { ...action, verb: "watch" }, kube.server);
      failingSince = undefined;
      for await (const line of lines(res)) {
        if (!line.trim()) continue;
        const ev = JSON.parse(line) as { type: string; object: V1Pod & { code?: number; message?: string } };
        if (ev.type === "ERROR") {
          if (ev.object.code === 410) {
            o.note?.(`k8s: watch expired (${ev.object.message ?? "410 Gone"}): listing pods again`);
            rv = undefined;
            break;
          }
          throw errorFromStatus({ code: ev.object.code ?? 500, message: ev.object.message }, { ...action, verb: "watch" }, kube.server);
        }
        rv = ev.object.metadata?.resourceVersion ?? rv;
        if (ev.type === "ADDED" || ev.type === "MODIFIED" || ev.type === "DELETED") onEvent({ type: ev.type, pod: ev.object });
      }
    } catch (e) {
      if (o.signal.aborted) return;
      const transient = e instanceof PlatformError ? /cannot reach/.test(e.message) : true;
      if (!transient) throw e;
      failingSince ??= Date.now();
      if (Date.now() - failingSince > (o.unreachableMs ?? 120_000)) throw e;
      o.note?.(`k8s: pod watch interrupted (${(e as Error).message}); retrying`);
      await sleep(1000, o.signal);
    }
  }
}

export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const t = setTimeout(done, ms);
    function done() {
      clearTimeout(t);
      signal?.removeEventListener("abort", done);
      resolve();
    }
    signal?.addEventListener("abort", done, { once: true });
  });
}
