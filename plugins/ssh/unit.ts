// One unit (the whole cluster, or one host in per-node mode): launch its ranks as their hosts
// become ready, follow them, and stop them all when the first thing goes wrong. Stopping kills the
// remote process groups over a fresh ssh first (closing a connection does not kill remote processes)
// and only then the local ssh clients, whose hangup the remote watchdogs treat as a last resort.
import { join } from "node:path";
import type { Launch, UnitRun } from "../../lib/core/types.ts";
import { runProc } from "../../lib/core/proc.ts";
import { launchFailure } from "../_shared/rank-lines.ts";
import { UnitLog } from "../_shared/unit-log.ts";
import { unitResult, type Failure, type StopReason } from "../_shared/unit-result.ts";
import { remoteCommand, sshArgv, type SshTarget } from "../_shared/ssh/argv.ts";
import { describeSshFailure, readPrepare, stageHost, type HostState, type PrepareOptions } from "../_shared/ssh/connect.ts";
import type { HostSpec } from "../_shared/ssh/hosts.ts";
import { procsOf, type Launcher, type RemoteProc, type UnitLayout } from "./layout.ts";
import type { Limiter } from "../_shared/limit.ts";
import { runRemoteProc, type ProcOutcome } from "./proc.ts";
import { killScript, type StagePaths } from "../_shared/ssh/scripts.ts";
import { bindSlots, complete } from "../../lib/core/slots.ts";
import type { SshManifest } from "./manifest.ts";

export interface UnitEnv {
  target: SshTarget;
  stage: StagePaths;
  runId: string;
  python: string;
  launcher: Launcher;
  launch: Launch;
  /** the manifest's envOnStdin as the wrappers read it (scripts.ts envBlock); absent when the suite gives no env */
  stdin?: string;
  masterAddr?: string;
  masterPort?: number;
  peerFailureGraceMs: number;
  killGraceMs: number;
  timeoutMs: number;
  logDir: string;
  signal: AbortSignal;
  /** the host's preparation, shared by every unit that uses it; `first`: this unit's own first command instead of the plain one */
  ready(host: HostSpec, first?: (host: HostSpec, o: PrepareOptions) => Promise<HostState>): Promise<HostState>;
  launchSlots: Limiter;
  controlSlots: Limiter;
  onLine(unit: string, rank: number, line: string): void;
  note(message: string): void;
}

type StopKind = StopReason | "infra" | "failed";

// the gpucheck launcher's one-rank hosts run their rank without it (layout.ts)
const what = (p: RemoteProc, launcher: Launcher) =>
  launcher === "direct" || (launcher === "gpucheck" && p.ranks.length === 1)
    ? `rank ${p.id}`
    : launcher === "mpirun"
      ? "mpirun"
      : `the ${launcher} launcher of ranks ${p.ranks[0]}-${p.ranks.at(-1)}`;

/** The rank that failed and why: a launcher names its first failing rank (gpucheck_workload.launch). */
function failureOf(p: RemoteProc, launcher: Launcher, code: number, log: UnitLog): Failure {
  const named = launchFailure(log.sourceLines(sourceOf(p)));
  const rank = named ? named.rank : p.id;
  return { who: named ? `rank ${rank}` : what(p, launcher), on: p.host.name, how: `failed with exit code ${named ? named.code : code}`, reason: log.lastError(rank) };
}

const sourceOf = (p: RemoteProc) => `${p.host.name}#${p.id}`;

/** The unit as `gpucheck plan` rendered it, run id and control directory already bound. */
export type PlannedSshUnit = SshManifest["units"][number];

export async function runUnit(u: UnitLayout, env: UnitEnv, planned: PlannedSshUnit): Promise<UnitRun> {
  const t0 = Date.now();
  const log = new UnitLog({ dir: join(env.logDir, u.unit), unit: u.unit, onLine: env.onLine });
  const local = new AbortController();
  const launched = new Map<number, { p: RemoteProc; out?: ProcOutcome }>();
  const events: Array<{ kind: StopKind; message: string; failure?: Failure }> = [];
  const killedIds: number[] = [];
  const unreachable: string[] = [];
  const lost = new Set<string>();
  const timers: Array<ReturnType<typeof setTimeout>> = [];
  let stopping: Promise<void> | undefined;
  let running = 0;

  const stop = (kind: StopKind, message: string) => {
    events.push({ kind, message });
    if (stopping) return;
    timers.push(setTimeout(() => local.abort("stopped"), env.killGraceMs + 3000));
    stopping = killRemote().then(() => void timers.push(setTimeout(() => local.abort("stopped"), 1000)));
  };
  // a process whose start is reported after the stop began (Ctrl-C during the launch) missed the kill
  // that went out then: it gets one of its own, rather than living on until its watchdog sees the
  // local client go (in the first session, nothing else would stop it)
  const lateKills: Promise<void>[] = [];
  const startedLate = (p: RemoteProc) => {
    if (stopping) lateKills.push(stopping.then(() => killRemote([p.id])));
  };
  const killRemote = async (only?: number[]) => {
    const byHost = new Map<HostSpec, number[]>();
    for (const { p, out } of launched.values()) if (out?.exitCode == null && (!only || only.includes(p.id))) byHost.set(p.host, [...(byHost.get(p.host) ?? []), p.id]);
    await Promise.all(
      [...byHost].map(([host, ids]) =>
        env.controlSlots.run(async () => {
          const script = killScript(env.stage, env.runId, ids, env.killGraceMs);
          const res = await runProc({
            argv: sshArgv(env.target, host, "mux", remoteCommand(script, `gpucheck-${env.runId}-kill`)),
            signal: AbortSignal.timeout(env.killGraceMs + env.target.connectTimeoutS * 1000 + 5000),
            graceMs: 500,
          });
          if (res.code === 0) killedIds.push(...[...res.stdout.matchAll(/^gpucheck-running (\d+)$/gm)].map((m) => Number(m[1])));
          else
            unreachable.push(`could not reach host ${host.name} to stop ${ids.map((i) => what(launched.get(i)!.p, env.launcher)).join(", ")}: ${describeSshFailure(res.stderr)}`);
        }),
      ),
    );
  };
  // a per-node unit's one process runs in its host's first ssh where the stage is there (ssh.ts render)
  let firstOut: Promise<ProcOutcome> | undefined;
  let ranFirst = false;
  const runFirst = (host: HostSpec, o: PrepareOptions) =>
    new Promise<HostState>((resolve) => {
      const said: string[] = [];
      // every check's line is in once the last one the script prints has come (or it ended the script)
      let checked = false;
      let answered = false;
      const answer = (st: HostState | Promise<HostState>) => {
        if (!answered) resolve(st);
        answered = true;
      };
      const p = procsOf(u, env.launch, env.python, env.launcher, { addr: "", port: "" }, {})[0]!;
      const read = (code: number | null) => readPrepare(host, { code, stdout: said.join("\n"), stderr: "", killed: false }, o);
      firstOut = runRemoteProc(p, {
        argv: planned.onePass!,
        ...(env.stdin !== undefined && { stdin: env.stdin }),
        target: env.target,
        stage: env.stage,
        runId: env.runId,
        signal: local.signal,
        // the checks' lines, before the wrapper starts the process
        preamble: (text) => {
          if (checked || !/^gpucheck-(staged|addr|port|no-python)\b/.test(text)) return false;
          said.push(text);
          checked = text === "gpucheck-no-python" || text.startsWith(o.wantPort ? "gpucheck-port " : "gpucheck-addr ");
          // no stage: the session now waits, its connection carrying the copy and the launch
          if (checked && said[0] === "gpucheck-staged no") answer(stageHost(host, o, read(0)));
          return true;
        },
        started: () => {
          ranFirst = true;
          launched.set(p.id, { p });
          startedLate(p);
          const c = read(0);
          answer({ ok: true, addr: c.ok ? c.addr : "", ...(c.ok && c.port !== undefined && { port: c.port }), copied: false, ownSession: true });
        },
        line: (text) => log.processLine(sourceOf(p), p.ranks, p.argv.includes("gpucheck_workload.launch"), text, p.host.name),
      }).then(
        async (out) => {
          // it ended before its process started (an ssh failure, a missing Python): the host's state says why
          if (!out.started) {
            const res = { code: out.sshCode, stdout: said.join("\n"), stderr: out.stderrTail, killed: out.killed, ...(out.spawnError && { spawnError: out.spawnError }) };
            answer(stageHost(host, o, readPrepare(host, res, o)));
          }
          return out;
        },
        (e): ProcOutcome => {
          answer({ ok: false, message: `host ${host.name}: ${e}` });
          return { exitCode: null, started: false, sshCode: null, killed: false, stderrTail: "", spawnError: String(e) };
        },
      );
    });
  const states = u.hosts.map((h, i) => (i === 0 && planned.onePass ? env.ready(h, runFirst) : env.ready(h)));
  const onAbort = () => stop(env.signal.reason === "timeout" ? "timeout" : "cancelled", "");
  if (env.signal.aborted) onAbort();
  else env.signal.addEventListener("abort", onAbort, { once: true });

  const host0 = await states[0]!;
  // masterAddr names the cluster's rank-0 host on its data network; a per-node unit meets on its own host
  const addr = u.unit === "all" ? env.masterAddr : undefined;
  const master = host0.ok ? { addr: addr ?? host0.addr, port: String(env.masterPort ?? host0.port) } : undefined;
  const procs = master ? procsOf(u, env.launch, env.python, env.launcher, master, { GPUCHECK_RUN_ID: env.runId }) : [];
  if (!master) stop("infra", "");
  // what runs is the plan's rendering with this unit's rendezvous bound, nothing rebuilt
  const h0 = u.hosts[0]!.name;
  const rendezvous = { [`masterAddr:${h0}`]: host0.ok ? host0.addr : "", ...(host0.ok && host0.port !== undefined ? { [`masterPort:${h0}`]: host0.port } : {}) };
  const bound =
    host0.ok && !ranFirst
      ? complete(bindSlots(planned, rendezvous), [`masterAddr:${h0}`, `masterPort:${h0}`, "runId", "controlDir"], `the ssh manifest of unit ${u.unit}`)
      : planned;
  const argvOf = new Map(bound.ranks.map((r) => [r.rank, r.argv]));

  /** A process has ended: a lost connection stops the unit; a failure gives its peers a grace period. */
  const settle = (p: RemoteProc, entry: { out?: ProcOutcome }, out: ProcOutcome) => {
    entry.out = out;
    if (out.exitCode === null && !stopping) {
      const why =
        out.spawnError ??
        (out.started
          ? `connection lost while ${what(p, env.launcher)} was running (ssh exited ${out.sshCode})`
          : `could not start ${what(p, env.launcher)}: ${describeSshFailure(out.stderrTail)}`);
      // a connection that dropped mid-run, or a host that never answered: that host, by name
      if (out.started || /^unreachable: /.test(describeSshFailure(out.stderrTail))) lost.add(p.host.name);
      stop("infra", `host ${p.host.name}: ${why}`);
    } else if (out.exitCode !== null && out.exitCode !== 0 && !stopping && !events.some((e) => e.kind === "failed")) {
      events.push({ kind: "failed", message: "", failure: failureOf(p, env.launcher, out.exitCode, log) });
      // its peers are likely blocked in a collective that will never complete
      timers.push(setTimeout(() => stop("failed", ""), env.peerFailureGraceMs));
    }
  };

  await Promise.all(
    procs.map(async (p) => {
      const state = await states[p.hostIndex]!;
      if (!state.ok) return stop("infra", "");
      if (ranFirst) return settle(p, launched.get(p.id)!, await firstOut!);
      if (stopping) return;
      const release = await env.launchSlots.acquire();
      if (stopping) return release();
      const entry: { p: RemoteProc; out?: ProcOutcome } = { p };
      // gpucheck_workload.launch prefixes its ranks' lines; torchrun and mpirun mix them in one log
      const prefixed = p.argv.includes("gpucheck_workload.launch");
      launched.set(p.id, entry);
      const out = await runRemoteProc(p, {
        argv: argvOf.get(p.id)!,
        ...(env.stdin !== undefined && { stdin: env.stdin }),
        target: env.target,
        stage: env.stage,
        runId: env.runId,
        signal: local.signal,
        started: () => {
          release();
          startedLate(p);
          // the fan-out's cost, worth seeing on hundreds of hosts
          if (++running === procs.length && u.unit === "all")
            env.note(`${procs.length} ${env.launcher === "direct" ? "ranks" : "launchers"} on ${u.hosts.length} hosts running after ${((Date.now() - t0) / 1000).toFixed(1)} s`);
        },
        line: (text) => log.processLine(sourceOf(p), p.ranks, prefixed, text, p.host.name),
      });
      release();
      settle(p, entry, out);
    }),
  );
  await stopping;
  await Promise.all(lateKills);

  timers.forEach(clearTimeout);
  env.signal.removeEventListener("abort", onAbort);

  await log.close();

  const settled = await Promise.all(states);
  const down = settled.flatMap((s) => (s.ok ? [] : [s.message]));
  settled.forEach((s, i) => {
    if (!s.ok && s.lost) lost.add(u.hosts[i]!.name);
  });
  const first = events.find((e) => e.kind !== "failed" || e.failure);
  // a per-host launcher's ranks share its exit code; torchrun and mpirun mix their ranks in one log
  const perRankLogs = env.launcher === "direct" || env.launcher === "gpucheck";
  const exits = new Map(
    [...launched.values()].flatMap(({ p, out }) => (perRankLogs ? p.ranks : [p.id]).map((rank) => [rank, { host: p.host.name, code: out?.exitCode ?? null }] as const)),
  );
  const stopped = killedIds.length
    ? killedIds
        .sort((a, b) => a - b)
        .map((i) => `${what(launched.get(i)!.p, env.launcher)} on ${launched.get(i)!.p.host.name}`)
        .join(", ")
    : "nothing (ranks had exited)";
  return unitResult({
    unit: u.unit,
    hosts: u.hosts.map((h) => h.name),
    startedAt: t0,
    ranks: log.ranks(
      [...exits.keys()],
      (r) => exits.get(r)?.code ?? null,
      (r) => exits.get(r)?.host ?? "",
    ),
    output: log.output(),
    tail: log.tail(),
    ...(first?.kind === "timeout" || first?.kind === "cancelled" ? { stopped: { by: first.kind, timeoutMs: env.timeoutMs, what: `killed ${stopped}` } } : {}),
    ...(first?.kind === "infra" ? { infra: [...down, first.message].filter(Boolean), ...(lost.size && { lost: [...lost] }) } : {}),
    ...(first?.kind === "failed" ? { failed: first.failure } : {}),
    also: unreachable,
  });
}
