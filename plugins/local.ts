// The local platform: a test's ranks as subprocesses of this host.
import { mkdirSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { dirname, join } from "node:path";
import { z } from "zod";
import type { UnitRun } from "../lib/core/types.ts";
import { freePort } from "./_shared/free-port.ts";
import { exitHow } from "./_shared/rank-lines.ts";
import { UnitLog } from "./_shared/unit-log.ts";
import { stopReason, unitResult } from "./_shared/unit-result.ts";
import { runProc } from "./_shared/proc.ts";
import { bindSlots, complete, slot, slotsIn } from "../lib/core/slots.ts";
import { unitsOfTest } from "../lib/plan/units.ts";
import { rankEnv, type Manifest, type Platform, type RenderContext, type RunContext } from "../lib/core/platform.ts";

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

/** What the local platform launches: per unit, one process per rank. */
export interface LocalManifest extends Manifest {
  host: string;
  stageDir: string;
  units: Array<{ unit: string; ranks: RankLaunch[] }>;
}

const SLOTS = {
  resultsDir: "the run's results directory",
  masterPort: "a free port on this host, chosen when the test starts",
};

/** Pure: the test's processes, with the stage directory and the port as slots unless the suite fixes them. */
function render(ctx: RenderContext<Settings>): LocalManifest {
  const { test, launch } = ctx;
  const host = hostname();
  const stageDir = ctx.settings.stageDir ?? `${slot("resultsDir")}/workload`;
  const port = ctx.settings.masterPort ?? slot("masterPort");
  // every node of a local test is this host: one unit runs all of them side by side
  const units = unitsOfTest(test, { names: [host], separate: false }).map((u) => ({
    unit: u.name,
    ranks: u.ranks.map((r) => ({
      rank: r.rank,
      argv: [launch.python, ...launch.args],
      env: {
        // each rank binds to its own share of this host's CPUs (workload affinity.py); a suite's env may say "none"
        GPUCHECK_CPU_BIND: "split",
        ...launch.env,
        ...rankEnv({ rank: r.rank, worldSize: u.ranks.length, localRank: r.localRank, localWorldSize: test.ranksPerNode, masterAddr: "127.0.0.1", masterPort: 0, node: host }),
        MASTER_PORT: String(port),
        PYTHONPATH: stageDir,
      },
    })),
  }));
  const slots = Object.fromEntries(Object.entries(SLOTS).filter(([k]) => slotsIn({ stageDir, units }).includes(k)));
  return { host, stageDir, units, slots };
}

function stage(files: ReadonlyMap<string, string>, dir: string): void {
  for (const [rel, text] of files) {
    const p = join(dir, rel);
    mkdirSync(dirname(p), { recursive: true });
    writeFileSync(p, text);
  }
}

/** The rendered manifest with this run's values bound: exactly what run() launches. */
export async function bindLocal(ctx: RunContext<Settings>): Promise<LocalManifest> {
  const manifest = render(ctx);
  const values = { resultsDir: ctx.outDir, ...("masterPort" in manifest.slots ? { masterPort: await freePort() } : {}) };
  return complete(bindSlots(manifest, values), Object.keys(manifest.slots), "the local manifest");
}

async function run(ctx: RunContext<Settings>): Promise<UnitRun[]> {
  const manifest = await bindLocal(ctx);
  stage(ctx.workload, manifest.stageDir);
  return Promise.all(manifest.units.map((u) => runUnit(ctx, manifest.host, u.unit, u.ranks)));
}

async function runUnit(ctx: RunContext<Settings>, host: string, unit: string, launches: RankLaunch[]): Promise<UnitRun> {
  const log = new UnitLog({ dir: join(ctx.logDir, unit), unit, onLine: ctx.onLine });
  const startedAt = Date.now();

  // one failing rank leaves its peers blocked in a collective: end them after a grace period
  const peersFailed = new AbortController();
  const stop = AbortSignal.any([ctx.signal, peersFailed.signal]);
  let firstFailure: { rank: number; code: number | null; signal: string | null } | undefined;

  for (const l of launches) log.open(l.rank);
  const results = await Promise.all(
    launches.map(async (l) => {
      const res = await runProc({
        argv: l.argv,
        env: { ...(process.env as Record<string, string>), ...l.env },
        signal: stop,
        onLine: (line) => log.line(l.rank, line, host),
      });
      if (res.code !== 0 && !firstFailure && !ctx.signal.aborted) {
        firstFailure = { rank: l.rank, code: res.code, signal: res.signal };
        setTimeout(() => peersFailed.abort("peer failed"), ctx.settings.peerFailureGraceMs).unref?.();
      }
      return { launch: l, res };
    }),
  );
  await log.close();
  const killed = results.filter((r) => r.res.killed).map((r) => `rank ${r.launch.rank} (pid ${r.res.pid})`);
  const spawnError = results.find((r) => r.res.spawnError)?.res.spawnError;
  const codes = new Map(results.map((r) => [r.launch.rank, r.res.code]));
  return unitResult({
    unit,
    hosts: [host],
    startedAt,
    ranks: log.ranks(
      [...codes.keys()],
      (r) => codes.get(r) ?? null,
      () => host,
    ),
    output: log.output(),
    tail: log.tail(),
    ...(ctx.signal.aborted ? { stopped: { by: stopReason(ctx.signal), timeoutMs: ctx.test.timeoutMs, what: `killed ${killed.join(", ") || "nothing (ranks had exited)"}` } } : {}),
    ...(spawnError ? { infra: [`could not launch: ${spawnError}`] } : {}),
    ...(firstFailure
      ? { failed: { who: `rank ${firstFailure.rank}`, on: host, how: `failed with ${exitHow(firstFailure.code, firstFailure.signal)}`, reason: log.lastError(firstFailure.rank) } }
      : {}),
  });
}

export const local: Platform<Settings, LocalManifest> = {
  name: "local",
  summary: "ranks as subprocesses on this host",
  flags: [],
  settings,
  hosts: () => ({ names: [hostname()], separate: false }),
  render,
  run,
};
