// Follow one unit (the whole test, or one node in per-node mode) from created to finished: watch its
// pods, report why they wait, stream their logs into rank logs, and decide the verdict.
import type { V1Pod } from "@kubernetes/client-node";
import type { UnitRun, UnitStatus } from "../../lib/types.ts";
import type { Kube } from "./client.ts";
import { latestWarning } from "./events.ts";
import { followLog, RankLogs } from "./logs.ts";
import { decide, viewOf, type Decision, type PodView } from "./podstate.ts";
import { watchPods } from "./watch.ts";

export interface UnitSpec {
  unit: string;
  labelSelector: string;
  /** rank pods: nodes, or 1 (per-node mode, the MPI launcher) */
  expected: number;
  ranksPerNode: number;
  worldSize: number;
  /** the container whose log carries the ranks' output */
  container: string;
  /** directory for rank-<N>.log */
  logDir: string;
  /** MPIJob: rank r runs on worker pod floor(r / ranksPerNode), not on the pod whose log has it */
  mpiJob?: string;
  /** the object whose controller makes the pods: its Warning events say why pods are missing */
  owner: string;
}

export interface FollowContext {
  signal: AbortSignal;
  queueTimeoutMs: number;
  onLine(unit: string, rank: number, line: string): void;
  note(message: string): void;
}

const LAUNCH_FAILURE = /^gpucheck-launch: rank (\d+) exited with (-?\d+)/;
/** after the verdict, how long a still-open log stream may take to deliver its last lines */
const LOG_DRAIN_MS = 10_000;

export async function followUnit(kube: Kube, u: UnitSpec, fc: FollowContext): Promise<UnitRun> {
  const startedAt = new Date().toISOString();
  const t0 = Date.now();
  const views = new Map<string, PodView>();
  const logs = new RankLogs(u.logDir, u.unit, fc.onLine);
  const following = new Map<string, Promise<void>>();
  const stop = new AbortController();
  const watchSignal = AbortSignal.any([fc.signal, stop.signal]);
  let decision: Decision = { done: false, pending: [] };
  let lastPending = "";
  let wake: () => void = () => {};
  let watchError: unknown;
  // without its logs a run cannot be judged: a refused log read ends the unit as infra
  let logError: unknown;
  let creationProblem: string | undefined;
  let askedEventsAt = 0;

  const apply = (pod: V1Pod, deleted: boolean) => views.set(pod.metadata!.name!, viewOf(pod, u.container, deleted));
  const watching = watchPods(kube, { labelSelector: u.labelSelector, signal: watchSignal, note: fc.note }, (e) => {
    if (e.type === "RESYNC") {
      const present = new Set(e.pods.map((p) => p.metadata!.name!));
      for (const [name, v] of views) if (!present.has(name)) views.set(name, { ...v, deleted: true });
      for (const p of e.pods) apply(p, false);
    } else apply(e.pod, e.type === "DELETED");
    wake();
  }).catch((e) => {
    watchError = e;
    wake();
  });

  while (!fc.signal.aborted && !watchError && !logError) {
    decision = decide([...views.values()], u.expected, Date.now() - t0, fc.queueTimeoutMs, creationProblem);
    const missing = u.expected - [...views.values()].filter((v) => v.role === "ranks").length;
    if (!decision.done && missing > 0 && Date.now() - askedEventsAt > 3000) {
      askedEventsAt = Date.now();
      void latestWarning(kube, u.owner).then((w) => {
        if (w && w !== creationProblem) {
          creationProblem = w;
          wake();
        }
      });
    }
    for (const v of views.values()) {
      if (v.role !== "ranks" || !v.started || following.has(v.name)) continue;
      const first = (v.nodeRank ?? 0) * u.ranksPerNode;
      const ended = () => isEnded(views.get(v.name));
      following.set(v.name, followLog(kube, v.name, u.container, ended, watchSignal, (line) => logs.add(v.name, first, line), fc.note).catch((e) => {
        logError ??= e;
        wake();
      }));
    }
    if (decision.done) break;
    const pending = decision.pending.join("; ");
    // pods take a moment to appear and be scheduled: report that only when it lasts, but a reason
    // (the scheduler's, the kubelet's, an admission refusal) at once
    const telling = /unschedulable|is waiting|not created yet \(/.test(pending);
    if (pending && pending !== lastPending && (telling || Date.now() - t0 > 1000)) fc.note(`k8s: ${u.unit}: ${pending}`);
    if (telling || Date.now() - t0 > 1000) lastPending = pending;
    await new Promise<void>((r) => {
      const t = setTimeout(r, 1000);
      wake = () => {
        clearTimeout(t);
        r();
      };
    });
  }
  // let the logs of finished containers drain; streams of containers still running (peers of a
  // failed rank, pods being cancelled) would only end with their pods, so stop following those
  const finished = [...following].filter(([name]) => isEnded(views.get(name))).map(([, p]) => p);
  const drain = setTimeout(() => stop.abort(), LOG_DRAIN_MS);
  await Promise.all(finished);
  clearTimeout(drain);
  stop.abort();
  await Promise.all(following.values());
  await watching;
  await logs.close();

  const apiFailure = (watchError ?? logError) as Error | undefined;
  const status: UnitStatus = fc.signal.aborted ? (fc.signal.reason === "timeout" ? "timeout" : "cancelled") : apiFailure ? "infra" : decision.done ? decision.status : "infra";
  const message = fc.signal.aborted
    ? `${status === "timeout" ? "timed out" : "cancelled"}${lastPending ? ` while ${lastPending}` : ""}`
    : apiFailure
      ? apiFailure.message
      : decision.done
        ? decision.message ?? (decision.status === "failed" ? failureMessage(decision.culprit!, logs, u) : undefined)
        : undefined;
  const byNodeRank = (nr: number) =>
    [...views.values()].find((v) => (u.mpiJob ? v.name === `${u.mpiJob}-worker-${nr}` : v.role === "ranks" && v.nodeRank === nr));
  const ranks = logs.ranks(
    Array.from({ length: u.worldSize }, (_, r) => r),
    (r) => exitCodeOf(r, u, views, logs, byNodeRank),
    (r) => byNodeRank(Math.floor(r / u.ranksPerNode))?.node ?? "",
  );
  return {
    unit: u.unit,
    hosts: [...new Set([...views.values()].map((v) => v.node).filter((n): n is string => Boolean(n)))].sort(),
    status,
    ...(message ? { message } : {}),
    startedAt,
    endedAt: new Date().toISOString(),
    ranks,
    output: logs.output(),
    tail: logs.tail(),
  };
}

function isEnded(v: PodView | undefined): boolean {
  return !v || v.deleted || Boolean(v.terminated);
}

function launchFailure(pod: string, logs: RankLogs): { rank: number; code: number } | undefined {
  const m = logs.podLines(pod).map((l) => LAUNCH_FAILURE.exec(l)).filter(Boolean).pop();
  return m ? { rank: Number(m[1]), code: Number(m[2]) } : undefined;
}

function exitCodeOf(rank: number, u: UnitSpec, views: Map<string, PodView>, logs: RankLogs, byNodeRank: (nr: number) => PodView | undefined): number | null {
  const pod = u.mpiJob ? [...views.values()].find((v) => v.role === "ranks") : byNodeRank(Math.floor(rank / u.ranksPerNode));
  if (!pod?.terminated) return null;
  if (pod.terminated.exitCode === 0) return 0;
  const f = launchFailure(pod.name, logs);
  if (f) return f.rank === rank ? f.code : null;
  return rank === (pod.nodeRank ?? 0) * u.ranksPerNode ? pod.terminated.exitCode : null;
}

export function failureMessage(v: PodView, logs: RankLogs, u: UnitSpec): string {
  const t = v.terminated!;
  const f = launchFailure(v.name, logs);
  const why = t.reason && t.reason !== "Error" ? ` (${t.reason}${t.message ? `: ${t.message}` : ""})` : "";
  const on = v.node ? ` on node ${v.node}` : "";
  if (f) {
    const err = logs.lastError(f.rank);
    return `rank ${f.rank}${on} (pod ${v.name}) exited with ${f.code}${err ? `: ${err}` : why}`;
  }
  const first = (v.nodeRank ?? 0) * u.ranksPerNode;
  const own = logs.podLines(v.name).filter((l) => l.trim()).pop();
  return `pod ${v.name}${on} (ranks ${first}-${first + u.ranksPerNode - 1}) exited with ${t.exitCode}${why}${own ? `: ${own}` : ""}`;
}
