// Pod logs, followed across broken streams. Each line goes to the unit's log (plugins/_shared/unit-log.ts),
// which routes gpucheck_workload.launch's `[rank N] ` lines to their ranks.
import { errorFromStatus, statusOfResponse } from "./api-errors.ts";
import type { Kube } from "./client.ts";
import { lines, sleep } from "./watch.ts";

/** RFC 3339 with nanoseconds → a string that sorts in time order */
function sortableTime(ts: string): string {
  const m = /^(.*?)(?:\.(\d+))?Z$/.exec(ts);
  return m ? `${m[1]}.${(m[2] ?? "").padEnd(9, "0")}` : ts;
}

/**
 * Follows one container's log until it has ended (`ended()` says the container terminated or the
 * pod is gone). The stream can break while the container runs (API server restart, kubelet log
 * rotation): reconnect from the last timestamp seen (sinceTime has whole seconds, so skip what was
 * already delivered) and never print a line twice.
 */
export async function followLog(
  kube: Kube,
  pod: string,
  container: string,
  ended: () => boolean,
  signal: AbortSignal,
  sink: (line: string) => void,
  note?: (m: string) => void,
): Promise<void> {
  let last = "";
  let seenAtLast = 0;
  const path = `/api/v1/namespaces/${encodeURIComponent(kube.namespace)}/pods/${encodeURIComponent(pod)}/log?container=${encodeURIComponent(container)}&follow=true&timestamps=true`;
  while (!signal.aborted) {
    const wasEnded = ended();
    let fresh = 0;
    let broke = false;
    try {
      const since = last ? `&sinceTime=${encodeURIComponent(last.replace(/\.\d+Z$/, "Z"))}` : "";
      const res = await kube.request(path + since, { signal });
      if (res.status === 404) return; // the pod is gone: its log with it
      if (!res.ok) {
        const s = await statusOfResponse(res);
        if (s.code === 403 || s.code === 401) throw errorFromStatus(s, { verb: "get", resource: "pods/log", namespace: kube.namespace, name: pod }, kube.server);
        note?.(`k8s: log of ${pod} not available yet: ${s.message ?? s.code}`);
      } else {
        let atLast = 0;
        for await (const raw of lines(res)) {
          const sp = raw.indexOf(" ");
          const ts = sp > 0 ? raw.slice(0, sp) : "";
          const text = sp > 0 ? raw.slice(sp + 1) : raw;
          const key = sortableTime(ts);
          if (ts && last && key < sortableTime(last)) continue;
          if (ts === last && ++atLast <= seenAtLast) continue;
          if (ts !== last) {
            last = ts;
            atLast = 1;
          }
          seenAtLast = atLast;
          fresh++;
          sink(text);
        }
      }
    } catch (e) {
      if (signal.aborted) return;
      if (/forbidden|rejected the credentials/.test((e as Error).message)) throw e;
      note?.(`k8s: log stream of ${pod} broke (${(e as Error).message}); reconnecting`);
      broke = true;
    }
    // the container had ended before this read began, so a read that did not break got everything;
    // one that broke (a connection reset, as a create saw at 300 fake nodes) is read again until
    // the unit's log drain gives up, or the node's output would be silently lost
    if (wasEnded && !broke) return;
    if (!fresh) await sleep(500, signal);
  }
}
