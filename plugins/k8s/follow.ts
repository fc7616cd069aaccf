// Follow one unit (the whole test, or one node in per-node mode) from created to finished: watch its
// pods, report why they wait, stream their logs into rank logs, and decide the verdict.
import type { V1Pod } from "@kubernetes/client-node";
import type { UnitRun } from "../../lib/core/types.ts";
import { launchFailure } from "../_shared/rank-lines.ts";
import { UnitLog } from "../_shared/unit-log.ts";
import { stopReason, unitResult, type Failure } from "../_shared/unit-result.ts";
import type { Kube } from "./client.ts";
import { latestWarning } from "./events.ts";
import { followLog } from "./logs.ts";
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
  /** a pattern's group: its nodes, named even when a pod never got one (the pattern weighs the group) */
  hosts?: string[];
  /** the object whose controller makes the pods: its Warning events say why pods are missing */
  owner: string;
}

export interface FollowContext {
  signal: AbortSignal;
  /** the test's timeout, for the message when it strikes */
  timeoutMs: number;
  queueTimeoutMs: number;
  onLine(unit: string, rank: number, line: string): void;
  note(message: string): void;
}

/** after the verdict, how long a still-open log stream may take to deliver its last lines */
const LOG_DRAIN_MS = 10_000;

export async function followUnit(kube: Kube, u: UnitSpec, fc: FollowContext): Promise<UnitRun> {
  const startedAt = new Date().toISOString();
  const t0 = Date.now();
  const views = new Map<string, PodView>();
  const logs = new UnitLog({ dir: u.logDir, unit: u.unit, onLine: fc.onLine });
  const range = (from: number, n: number) => Array.from({ length: n }, (_, i) => from + i);
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
      // the MPI launcher's log carries every rank; a node's pod its own ranks
      const ranks = u.mpiJob ? range(0, u.worldSize) : range((v.nodeRank ?? 0) * u.ranksPerNode, u.ranksPerNode);
      const ended = () => isEnded(views.get(v.name));
      following.set(
        v.name,
        followLog(kube, v.name, u.container, ended, watchSignal, (line) => logs.processLine(v.name, ranks, true, line, v.node), fc.note).catch((e) => {
          logError ??= e;
          wake();
        }),
      );
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
  let drained = false;
  const cut = new Set<string>();
  const drain = setTimeout(() => {
    drained = true;
    stop.abort();
  }, LOG_DRAIN_MS);
  const finished = [...following].filter(([name]) => isEnded(views.get(name)));
  await Promise.all(finished.map(([name, p]) => p.then(() => drained && cut.add(name))));
  clearTimeout(drain);
  stop.abort();
  await Promise.all(following.values());
  await watching;
  await logs.close();

  const apiFailure = (watchError ?? logError) as Error | undefined;
  const byNodeRank = (nr: number) => [...views.values()].find((v) => (u.mpiJob ? v.name === `${u.mpiJob}-worker-${nr}` : v.role === "ranks" && v.nodeRank === nr));
  const ranks = logs.ranks(
    range(0, u.worldSize),
    (r) => exitCodeOf(r, u, views, logs, byNodeRank),
    (r) => byNodeRank(Math.floor(r / u.ranksPerNode))?.node ?? "",
  );
  return unitResult({
    unit: u.unit,
    hosts: u.hosts ?? [...new Set([...views.values()].map((v) => v.node).filter((n): n is string => Boolean(n)))].sort(),
    startedAt,
    ranks,
    output: logs.output(),
    tail: logs.tail(),
    ...(fc.signal.aborted ? { stopped: { by: stopReason(fc.signal), timeoutMs: fc.timeoutMs, ...(lastPending ? { what: `while ${lastPending}` } : {}) } } : {}),
    ...(apiFailure ? { infra: [apiFailure.message] } : cut.size ? { infra: [logsCut([...cut])] } : !decision.done ? { infra: [] } : {}),
    ...(decision.done && decision.status === "failed" && !decision.message ? { failed: failureOf(decision.culprit!, logs, u) } : {}),
    ...(decision.done ? { decided: { status: decision.status, ...(decision.message ? { message: decision.message } : {}) } } : {}),
  });
}

/** a finished container's log that had not all arrived by the drain: what the unit printed is unknown, so it cannot be judged */
function logsCut(pods: string[]): string {
  return `the log of pod ${pods.sort().join(", ")} had not all arrived ${LOG_DRAIN_MS / 1000}s after its container ended`;
}

function isEnded(v: PodView | undefined): boolean {
  return !v || v.deleted || Boolean(v.terminated);
}

function launchFailureOf(pod: string, logs: UnitLog): { rank: number; code: number } | undefined {
  return launchFailure(logs.sourceLines(pod));
}

function exitCodeOf(rank: number, u: UnitSpec, views: Map<string, PodView>, logs: UnitLog, byNodeRank: (nr: number) => PodView | undefined): number | null {
  const pod = u.mpiJob ? [...views.values()].find((v) => v.role === "ranks") : byNodeRank(Math.floor(rank / u.ranksPerNode));
  if (!pod?.terminated) return null;
  if (pod.terminated.exitCode === 0) return 0;
  const f = launchFailureOf(pod.name, logs);
  if (f) return f.rank === rank ? f.code : null;
  return rank === (pod.nodeRank ?? 0) * u.ranksPerNode ? pod.terminated.exitCode : null;
}

/** The pod that failed: the rank its launcher names with the workload's reason, else the pod's own last words. */
export function failureOf(v: PodView, logs: UnitLog, u: UnitSpec): Failure {
  const t = v.terminated!;
  const f = launchFailureOf(v.name, logs);
  const why = t.reason && t.reason !== "Error" ? ` (${t.reason}${t.message ? `: ${t.message}` : ""})` : "";
  if (f) {
    const err = logs.lastError(f.rank);
    const pod = `(pod ${v.name})`;
    const where = v.node ? { who: `rank ${f.rank}`, on: `node ${v.node} ${pod}` } : { who: `rank ${f.rank} ${pod}` };
    return { ...where, how: `exited with ${f.code}${err ? "" : why}`, reason: err };
  }
  const first = (v.nodeRank ?? 0) * u.ranksPerNode;
  const own = logs
    .sourceLines(v.name)
    .filter((l) => l.trim())
    .pop();
  return { who: `pod ${v.name}`, ...(v.node ? { on: `node ${v.node}` } : {}), how: `(ranks ${first}-${first + u.ranksPerNode - 1}) exited with ${t.exitCode}${why}`, reason: own };
}
