// Running a local test: the rendered manifest bound to this run (a free port, the results
// directory), the workload staged, each rank a subprocess, one UnitLog per unit.
import { rmSync } from "node:fs";
import { join } from "node:path";
import { ensureOwnDir, writePrivateFileAtomic } from "../../lib/core/private-fs.ts";
import type { UnitRun } from "../../lib/core/types.ts";
import { freePort } from "../_shared/free-port.ts";
import { exitHow } from "../_shared/rank-lines.ts";
import { UnitLog } from "../_shared/unit-log.ts";
import { ended, stopReason, unitResult } from "../_shared/unit-result.ts";
import { runProc } from "../../lib/core/proc.ts";
import { PlatformError } from "../../lib/core/errors.ts";
import { fsErrorLine, isErrnoError } from "../../lib/core/fs-error.ts";
import { bindSlots, complete } from "../../lib/core/slots.ts";
import type { RunContext } from "../../lib/core/platform.ts";
import type { LocalManifest, LocalSettings as Settings, RankLaunch } from "./manifest.ts";

/**
 * The workload into <out>/workload (or platform.local.stageDir): a directory gpucheck makes itself,
 * private, or an existing one of this user's that nobody else can write; each file written whole
 * (a fresh temporary name, then rename) and never through a symlink (private-fs.ts), so a full disk
 * leaves no zero-byte or truncated module a later run would import. Python runs from here as the operator.
 */
function stage(files: ReadonlyMap<string, string>, dir: string): void {
  ensureOwnDir(dir, "the workload stage (platform.local.stageDir)");
  const staged: string[] = [];
  for (const [rel, text] of files) {
    const p = join(dir, rel);
    try {
      writePrivateFileAtomic(p, text);
      staged.push(p);
    } catch (e) {
      // half a workload is no workload: what this call staged goes too, and the space with it
      for (const f of staged) rmSync(f, { force: true });
      throw isErrnoError(e) ? new PlatformError(fsErrorLine(e, { doing: "stage the workload into", path: p, option: "--out", mode: "write" })) : e;
    }
  }
}

/** The rendered manifest with this run's values bound: exactly what run() launches. */
export async function bindLocal(ctx: RunContext<Settings>, render: (ctx: RunContext<Settings>) => LocalManifest): Promise<LocalManifest> {
  const manifest = render(ctx);
  const values = { resultsDir: ctx.outDir, ...("masterPort" in manifest.slots ? { masterPort: await freePort() } : {}) };
  return complete(bindSlots(manifest, values), Object.keys(manifest.slots), "the local manifest");
}

export async function runLocal(ctx: RunContext<Settings>, render: (ctx: RunContext<Settings>) => LocalManifest): Promise<UnitRun[]> {
  const manifest = await bindLocal(ctx, render);
  stage(ctx.workload, manifest.stageDir);
  return Promise.all(manifest.units.map(async (u) => ended(ctx, await runUnit(ctx, manifest.host, u.unit, u.ranks))));
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
        // stdin held open: a rank whose gpucheck died (even by SIGKILL) reads EOF and ends its group
        // (workload/gpucheck_workload/hangup.py), within a second rather than at its own end
        env: { ...(process.env as Record<string, string>), ...l.env, GPUCHECK_HANGUP: "stdin" },
        holdStdin: true,
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
