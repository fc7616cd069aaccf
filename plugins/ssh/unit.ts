// One unit (the whole cluster, or one host in per-node mode): launch its ranks as their hosts
// become ready, follow them, and stop them all when the first thing goes wrong. Stopping kills the
// remote process groups over a fresh ssh first (closing a connection does not kill remote processes)
// and only then the local ssh clients, whose hangup the remote watchdogs treat as a last resort.
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Launch, RankLog, UnitRun } from "../../lib/types.ts";
import { runProc } from "../_proc.ts";
import { lastWorkloadError } from "../local.ts";
import { remoteCommand, sshArgv, type SshTarget } from "./argv.ts";
import { describeSshFailure, type HostState } from "./connect.ts";
import type { HostSpec } from "./hosts.ts";
import { procsOf, type Launcher, type RemoteProc, type UnitLayout } from "./layout.ts";
import type { Limiter } from "./limit.ts";
import { rankLog, runRemoteProc, type ProcOutcome } from "./proc.ts";
import { killScript, type StagePaths } from "./scripts.ts";

export interface UnitEnv {
  target: SshTarget;
  stage: StagePaths;
  runId: string;
  python: string;
  launcher: Launcher;
  launch: Launch;
  masterAddr?: string;
  masterPort?: number;
  peerFailureGraceMs: number;
  killGraceMs: number;
  timeoutMs: number;
  logDir: string;
  signal: AbortSignal;
  /** the host's preparation, shared by every unit that uses it */
  ready(host: HostSpec): Promise<HostState>;
  launchSlots: Limiter;
  controlSlots: Limiter;
  onLine(unit: string, rank: number, line: string): void;
  note(message: string): void;
}

type StopKind = "timeout" | "cancelled" | "infra" | "failed";

const what = (p: RemoteProc, launcher: Launcher) =>
  launcher === "direct" ? `rank ${p.id}` : launcher === "mpirun" ? "mpirun" : `the ${launcher} launcher of ranks ${p.ranks[0]}-${p.ranks.at(-1)}`;

/** The rank that failed and why: a launcher names its first failing rank (gpucheck_workload.launch). */
function failureOf(p: RemoteProc, launcher: Launcher, code: number, dir: string): string {
  const named = /^gpucheck-launch: rank (\d+) exited with (-?\d+)$/m.exec(readLog(rankLog(dir, p.id)));
  const rank = named ? Number(named[1]) : p.id;
  const reason = lastWorkloadError(readLog(rankLog(dir, rank)));
  const who = named ? `rank ${rank}` : what(p, launcher);
  return `${who} on ${p.host.name} failed with exit code ${named ? named[2] : code}${reason ? `: ${reason}` : ""}`;
}

export async function runUnit(u: UnitLayout, env: UnitEnv): Promise<UnitRun> {
  const t0 = Date.now();
  const dir = join(env.logDir, u.unit);
  mkdirSync(dir, { recursive: true });
  const states = u.hosts.map((h) => env.ready(h));
  const tail: string[] = [];
  const local = new AbortController();
  const launched = new Map<number, { p: RemoteProc; out?: ProcOutcome }>();
  const events: Array<{ kind: StopKind; message: string }> = [];
  const killedIds: number[] = [];
  const unreachable: string[] = [];
  const timers: Array<ReturnType<typeof setTimeout>> = [];
  let stopping: Promise<void> | undefined;
  let running = 0;

  const stop = (kind: StopKind, message: string) => {
    events.push({ kind, message });
    if (stopping) return;
    timers.push(setTimeout(() => local.abort("stopped"), env.killGraceMs + 3000));
    stopping = killRemote().then(() => void timers.push(setTimeout(() => local.abort("stopped"), 1000)));
  };
  const killRemote = async () => {
    const byHost = new Map<HostSpec, number[]>();
    for (const { p, out } of launched.values()) if (out?.exitCode == null) byHost.set(p.host, [...(byHost.get(p.host) ?? []), p.id]);
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
          else unreachable.push(`could not reach host ${host.name} to stop ${ids.map((i) => what(launched.get(i)!.p, env.launcher)).join(", ")}: ${describeSshFailure(res.stderr)}`);
        }),
      ),
    );
  };
  const onAbort = () => stop(env.signal.reason === "timeout" ? "timeout" : "cancelled", "");
  if (env.signal.aborted) onAbort();
  else env.signal.addEventListener("abort", onAbort, { once: true });

  const host0 = await states[0]!;
  // masterAddr names the cluster's rank-0 host on its data network; a per-node unit meets on its own host
  const addr = u.unit === "all" ? env.masterAddr : undefined;
  const master = host0.ok ? { addr: addr ?? host0.addr, port: String(env.masterPort ?? host0.port) } : undefined;
  const procs = master ? procsOf(u, env.launch, env.python, env.launcher, master, { GPUCHECK_RUN_ID: env.runId }) : [];
  if (!master) stop("infra", "");

  await Promise.all(
    procs.map(async (p) => {
      const state = await states[p.hostIndex]!;
      if (!state.ok) return stop("infra", "");
      if (stopping) return;
      const release = await env.launchSlots.acquire();
      if (stopping) return release();
      const entry: { p: RemoteProc; out?: ProcOutcome } = { p };
      launched.set(p.id, entry);
      const out = await runRemoteProc(p, {
        target: env.target,
        stage: env.stage,
        runId: env.runId,
        logDir: dir,
        signal: local.signal,
        started: () => {
          release();
          // the fan-out's cost, worth seeing on hundreds of hosts
          if (++running === procs.length && u.unit === "all") env.note(`${procs.length} ${env.launcher === "direct" ? "ranks" : "launchers"} on ${u.hosts.length} hosts running after ${((Date.now() - t0) / 1000).toFixed(1)} s`);
        },
        line: (rank, text) => {
          env.onLine(u.unit, rank, text);
          tail.push(`[${p.host.name} rank ${rank}] ${text}`);
          if (tail.length > 200) tail.splice(0, tail.length - 100);
        },
      });
      release();
      entry.out = out;
      if (out.exitCode === null && !stopping) {
        const why = out.spawnError ?? (out.started ? `connection lost while ${what(p, env.launcher)} was running (ssh exited ${out.sshCode})` : `could not start ${what(p, env.launcher)}: ${describeSshFailure(out.stderrTail)}`);
        stop("infra", `host ${p.host.name}: ${why}`);
      } else if (out.exitCode !== null && out.exitCode !== 0 && !stopping && !events.some((e) => e.kind === "failed")) {
        events.push({ kind: "failed", message: failureOf(p, env.launcher, out.exitCode, dir) });
        // its peers are likely blocked in a collective that will never complete
        timers.push(setTimeout(() => stop("failed", ""), env.peerFailureGraceMs));
      }
    }),
  );
  await stopping;
  timers.forEach(clearTimeout);
  env.signal.removeEventListener("abort", onAbort);

  const down = (await Promise.all(states)).flatMap((s) => (s.ok ? [] : [s.message]));
  const first = events.find((e) => e.kind !== "failed" || e.message) ?? { kind: "completed" as const, message: "" };
  // a per-host launcher's ranks share its exit code; torchrun and mpirun mix their ranks in one log
  const perRankLogs = env.launcher === "direct" || env.launcher === "gpucheck";
  const ranks: RankLog[] = [...launched.values()]
    .flatMap(({ p, out }) => (perRankLogs ? p.ranks : [p.id]).map((rank) => ({ rank, host: p.host.name, path: rankLog(dir, rank), exitCode: out?.exitCode ?? null })))
    .sort((a, b) => a.rank - b.rank);
  const base = {
    unit: u.unit,
    hosts: u.hosts.map((h) => h.name),
    startedAt: new Date(t0).toISOString(),
    endedAt: new Date().toISOString(),
    ranks,
    output: readLog(rankLog(dir, 0)),
    tail: tail.slice(-40).join("\n"),
  };
  const stopped = killedIds.length ? killedIds.sort((a, b) => a - b).map((i) => `${what(launched.get(i)!.p, env.launcher)} on ${launched.get(i)!.p.host.name}`).join(", ") : "nothing (ranks had exited)";
  const also = unreachable.length ? `; ${unreachable.join("; ")}` : "";
  switch (first.kind) {
    case "completed":
      return { ...base, status: "completed" };
    case "failed":
      return { ...base, status: "failed", message: first.message + also };
    case "infra":
      return { ...base, status: "infra", message: [...down, first.message].filter(Boolean).join("; ") + also };
    default:
      return { ...base, status: first.kind, message: `${first.kind === "timeout" ? `timed out after ${Math.round(env.timeoutMs / 1000)}s` : "cancelled"}: killed ${stopped}${also}` };
  }
}

function readLog(path: string): string {
  return existsSync(path) ? readFileSync(path, "utf8") : "";
}
