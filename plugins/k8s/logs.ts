// Pod logs → rank logs. gpucheck_workload.launch prefixes each rank's lines with `[rank N] `, so
// one pod log carries all of a node's ranks (and the MPI launcher's log all ranks). Lines without
// the prefix are the pod's own (the launcher's verdict, a shell or Python error before any rank
// started) and go to the pod's first rank.
import { createWriteStream, mkdirSync, writeFileSync, type WriteStream } from "node:fs";
import { join } from "node:path";
import type { RankLog } from "../../lib/types.ts";
import { errorFromStatus, statusOfResponse } from "./api-errors.ts";
import type { Kube } from "./client.ts";
import { lines, sleep } from "./watch.ts";

const RANK_PREFIX = /^\[rank (\d+)\] ?(.*)$/;
const WORKLOAD_ERROR = /^gpucheck-workload: error: (.*)$/;
const TAIL = 40;

export class RankLogs {
  private files = new Map<number, WriteStream>();
  private rank0: string[] = [];
  private tailLines: string[] = [];
  private own = new Map<string, string[]>();
  private errors = new Map<number, string>();

  constructor(
    private dir: string,
    private unit: string,
    private onLine: (unit: string, rank: number, line: string) => void,
  ) {
    mkdirSync(dir, { recursive: true });
  }

  path(rank: number): string {
    return join(this.dir, `rank-${rank}.log`);
  }

  /** one line of pod `pod`, whose ranks start at `firstRank` */
  add(pod: string, firstRank: number, raw: string): void {
    const m = RANK_PREFIX.exec(raw);
    const rank = m ? Number(m[1]) : firstRank;
    const line = m ? m[2]! : raw;
    if (!m) {
      const mine = this.own.get(pod) ?? [];
      mine.push(line);
      if (mine.length > TAIL) mine.shift();
      this.own.set(pod, mine);
    }
    const err = WORKLOAD_ERROR.exec(line);
    if (err) this.errors.set(rank, err[1]!);
    let f = this.files.get(rank);
    if (!f) this.files.set(rank, (f = createWriteStream(this.path(rank), { flags: "a" })));
    f.write(`${line}\n`);
    if (rank === 0) this.rank0.push(line);
    this.tailLines.push(`[rank ${rank}] ${line}`);
    if (this.tailLines.length > TAIL * 5) this.tailLines.splice(0, this.tailLines.length - TAIL);
    this.onLine(this.unit, rank, line);
  }

  /** the pod's own lines (not a rank's), newest last */
  podLines(pod: string): string[] {
    return this.own.get(pod) ?? [];
  }

  output(): string {
    return this.rank0.length ? `${this.rank0.join("\n")}\n` : "";
  }

  tail(): string {
    return this.tailLines.slice(-TAIL).join("\n");
  }

  /** the workload's own last explanation on this rank (`gpucheck-workload: error: …`) */
  lastError(rank: number): string | undefined {
    return this.errors.get(rank);
  }

  /** every rank that printed, plus the ones the caller knows exist */
  ranks(known: number[], exitCode: (rank: number) => number | null, host: (rank: number) => string): RankLog[] {
    const all = [...new Set([...known, ...this.files.keys()])].sort((a, b) => a - b);
    // a rank that printed nothing still gets its (empty) log, so every path given out exists
    for (const rank of all) if (!this.files.has(rank)) writeFileSync(this.path(rank), "", { flag: "a" });
    return all.map((rank) => ({ rank, host: host(rank), path: this.path(rank), exitCode: exitCode(rank) }));
  }

  async close(): Promise<void> {
    await Promise.all([...this.files.values()].map((f) => new Promise<void>((r) => f.end(r))));
  }
}

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
export async function followLog(kube: Kube, pod: string, container: string, ended: () => boolean, signal: AbortSignal, sink: (line: string) => void, note?: (m: string) => void): Promise<void> {
  let last = "";
  let seenAtLast = 0;
  const path = `/api/v1/namespaces/${encodeURIComponent(kube.namespace)}/pods/${encodeURIComponent(pod)}/log?container=${encodeURIComponent(container)}&follow=true&timestamps=true`;
  while (!signal.aborted) {
    const wasEnded = ended();
    let fresh = 0;
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
    }
    // the container had ended before this read began, so the read got everything
    if (wasEnded) return;
    if (!fresh) await sleep(500, signal);
  }
}
