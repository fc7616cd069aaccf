// The local platform: a test's ranks as subprocesses of this host.
import { mkdirSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { hostname } from "node:os";
import { dirname, join } from "node:path";
import { z } from "zod";
import type { RankLog, UnitRun } from "../lib/types.ts";
import { runProc } from "./_proc.ts";
import { rankEnv, type Platform, type RenderContext, type RunContext } from "./types.ts";

const settings = z.lazy(() =>
  z
    .object({
      /** where the workload is staged; default <results dir>/workload */
      stageDir: z.string().min(1).optional(),
      /** rendezvous port for rank 0; default: a free port */
      masterPort: z.number().int().min(1).max(65535).optional(),
      /** ms a rank may outlive a failed peer before it is killed (a gloo/NCCL peer never returns alone) */
      peerFailureGraceMs: z.number().int().min(0).default(5000),
    })
    .strict(),
);

type Settings = z.infer<typeof settings>;

interface RankLaunch {
  rank: number;
  argv: string[];
  env: Record<string, string>;
}

function ranksFor(ctx: RenderContext<Settings>, stageDir: string, port: number | string): RankLaunch[] {
  const { test, launch } = ctx;
  const node = hostname();
  return Array.from({ length: test.worldSize }, (_, rank) => ({
    rank,
    argv: [launch.python, ...launch.args],
    env: {
      // each rank binds to its own share of this host's CPUs (workload affinity.py); a suite's env may say "none"
      GPUCHECK_CPU_BIND: "split",
      ...launch.env,
      ...rankEnv({
        rank,
        worldSize: test.worldSize,
        localRank: rank % test.ranksPerNode,
        localWorldSize: test.ranksPerNode,
        masterAddr: "127.0.0.1",
        masterPort: Number(port) || 0,
        node,
      }),
      ...(typeof port === "string" ? { MASTER_PORT: port } : {}),
      PYTHONPATH: stageDir,
    },
  }));
}

/** A port nothing listens on at 127.0.0.1 (the kernel picks one); the docker platform uses it too. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

function stage(files: ReadonlyMap<string, string>, dir: string): void {
  for (const [rel, text] of files) {
    const p = join(dir, rel);
    mkdirSync(dirname(p), { recursive: true });
    writeFileSync(p, text);
  }
}

async function run(ctx: RunContext<Settings>): Promise<UnitRun[]> {
  const stageDir = ctx.settings.stageDir ?? join(ctx.outDir, "workload");
  stage(ctx.workload, stageDir);
  const port = ctx.settings.masterPort ?? (await freePort());
  const unit = ctx.test.perNode ? hostname() : "all";
  const unitDir = join(ctx.logDir, unit);
  mkdirSync(unitDir, { recursive: true });
  const startedAt = new Date().toISOString();

  // one failing rank leaves its peers blocked in a collective: end them after a grace period
  const peersFailed = new AbortController();
  const stop = AbortSignal.any([ctx.signal, peersFailed.signal]);
  let firstFailure: { rank: number; code: number | null } | undefined;
  const tail: string[] = [];

  const launches = ranksFor(ctx, stageDir, port);
  const results = await Promise.all(
    launches.map(async (l) => {
      const path = join(unitDir, `rank-${l.rank}.log`);
      const res = await runProc({
        argv: l.argv,
        env: { ...(process.env as Record<string, string>), ...l.env },
        logPath: path,
        signal: stop,
        onLine: (line) => {
          ctx.onLine(unit, l.rank, line);
          // telemetry samples would push people's lines out of the tail
          if (line.includes("GPUCHECK_TELEMETRY")) return;
          tail.push(`[rank ${l.rank}] ${line}`);
          if (tail.length > 200) tail.splice(0, tail.length - 200);
        },
      });
      if (res.code !== 0 && !firstFailure && !ctx.signal.aborted) {
        firstFailure = { rank: l.rank, code: res.code };
        setTimeout(() => peersFailed.abort("peer failed"), ctx.settings.peerFailureGraceMs).unref?.();
      }
      return { launch: l, res, path };
    }),
  );

  const ranks: RankLog[] = results.map(({ launch, res, path }) => ({
    rank: launch.rank,
    host: hostname(),
    path,
    exitCode: res.code,
  }));
  const rank0 = results[0]!.res;
  const base = {
    unit,
    hosts: [hostname()],
    startedAt,
    endedAt: new Date().toISOString(),
    ranks,
    output: rank0.stdout + rank0.stderr,
    tail: tail.slice(-40).join("\n"),
  };
  const killed = results.filter((r) => r.res.killed).map((r) => `rank ${r.launch.rank} (pid ${r.res.pid})`);
  if (ctx.signal.aborted) {
    const reason = ctx.signal.reason === "timeout" ? "timeout" : "cancelled";
    const what = reason === "timeout" ? `timed out after ${Math.round(ctx.test.timeoutMs / 1000)}s` : "cancelled";
    return [{ ...base, status: reason, message: `${what}: killed ${killed.join(", ") || "nothing (ranks had exited)"}` }];
  }
  const spawnError = results.find((r) => r.res.spawnError)?.res.spawnError;
  if (spawnError) return [{ ...base, status: "infra", message: `could not launch: ${spawnError}` }];
  if (firstFailure) {
    const r = results[firstFailure.rank]!.res;
    const why = lastWorkloadError(r.stderr) ?? lastWorkloadError(r.stdout);
    const code = firstFailure.code === null ? `signal ${r.signal}` : `exit code ${firstFailure.code}`;
    return [{ ...base, status: "failed", message: `rank ${firstFailure.rank} on ${hostname()} failed with ${code}${why ? `: ${why}` : ""}` }];
  }
  return [{ ...base, status: "completed" }];
}

/** The workload's own one-line explanation, when it gave one. */
export function lastWorkloadError(text: string): string | undefined {
  const m = [...text.matchAll(/^gpucheck-workload: error: (.*)$/gm)].pop();
  return m?.[1];
}

export const local: Platform<Settings> = {
  name: "local",
  summary: "ranks as subprocesses on this host",
  flags: [],
  settings,
  hosts: () => ({ names: [hostname()], separate: false }),
  render: (ctx) => ({
    host: hostname(),
    stageDir: ctx.settings.stageDir ?? "<results>/workload",
    ranks: ranksFor(ctx, ctx.settings.stageDir ?? "<results>/workload", ctx.settings.masterPort ?? "<free port>"),
  }),
  run,
};
