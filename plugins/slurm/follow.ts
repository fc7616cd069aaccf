// Following a submitted job: one scheduler query per tick whatever the job's size, fast at
// first and slower as the job runs, woken early when the batch script prints its end mark.
// Which command answers is probed once: squeue (always there) or scontrol for a live job, then
// sacct or `sacct -c` (the jobcomp file) once slurmctld has forgotten it (MinJobAge).
import { PlatformError } from "../../lib/core/errors.ts";
import type { SlurmIo } from "./cli.ts";
import { type JobInfo, SACCT_FIELDS, SQUEUE_FORMAT, parseSacct, parseScontrolJob, parseSqueue } from "./query.ts";
import { phaseOf } from "./states.ts";

type Source = "squeue" | "scontrol" | "sacct" | "sacct -c";

const ARGV: Record<Source, (id: string) => string[]> = {
  squeue: (id) => ["squeue", "-h", "-t", "all", "-j", id, "-o", SQUEUE_FORMAT],
  scontrol: (id) => ["scontrol", "show", "job", id],
  sacct: (id) => ["sacct", "-n", "-P", "-X", "-j", id, "-o", SACCT_FIELDS],
  "sacct -c": (id) => ["sacct", "-c", "-n", "-P", "-X", "-j", id, "-o", SACCT_FIELDS],
};

const PARSE: Record<Source, (text: string, id: string) => JobInfo | undefined> = {
  squeue: (t, id) => parseSqueue(t).find((j) => j.id === id),
  scontrol: (t) => parseScontrolJob(t),
  sacct: (t, id) => parseSacct(t).find((j) => j.id === id),
  "sacct -c": (t, id) => parseSacct(t).find((j) => j.id === id),
};

/** A job slurmctld no longer (or never) knew, or that already ended: not a broken command. */
const UNKNOWN_JOB = /Invalid job id|already completing or completed/i;

/** A query that failed in a way that may not last; followJob retries it a few times. */
export class TransientError extends PlatformError {}

export class JobQuery {
  /** sources that failed as commands (missing, disabled, denied), with why */
  readonly broken = new Map<Source, string>();

  constructor(private readonly io: SlurmIo) {}

  /** The job as the first working source knows it; undefined when none knows it. */
  async get(id: string): Promise<JobInfo | undefined> {
    for (const live of ["squeue", "scontrol"] as const) {
      if (this.broken.has(live)) continue;
      const found = await this.ask(live, id);
      if (found !== "broken") {
        if (found) return found;
        break; // a live source that works but does not know the job: ask the history
      }
    }
    for (const past of ["sacct", "sacct -c"] as const) {
      if (this.broken.has(past)) continue;
      const found = await this.ask(past, id);
      if (found && found !== "broken") return found;
    }
    if (this.broken.size === 4) {
      throw new PlatformError(`cannot query Slurm for job ${id}: ${[...this.broken].map(([s, why]) => `${s}: ${why}`).join("; ")}`);
    }
    return undefined;
  }

  private async ask(source: Source, id: string): Promise<JobInfo | undefined | "broken"> {
    const r = await this.io.exec(ARGV[source](id));
    const err = (r.spawnError ?? r.stderr).trim();
    // sacct without slurmdbd: exit 1 here, exit 0 on some versions; either way it never will work
    if (/accounting storage is disabled/i.test(r.stdout + err)) return this.mark(source, "accounting storage is disabled");
    if (r.code === 0 && !r.spawnError) return PARSE[source](r.stdout, id);
    if (UNKNOWN_JOB.test(err)) return undefined;
    const why = err.split("\n").pop() || `exit code ${r.code}`;
    // a missing command stays missing; anything else (slurmctld restarting, a socket timeout) may pass
    if (r.spawnError?.endsWith("command not found")) return this.mark(source, why);
    throw new TransientError(`${ARGV[source](id).join(" ")}: ${why}`);
  }

  private mark(source: Source, why: string): "broken" {
    this.broken.set(source, why);
    return "broken";
  }
}

export interface FollowOptions {
  signal: AbortSignal;
  queueTimeoutMs: number;
  /** longest gap between two queries */
  pollMaxMs: number;
  /** called about every 250 ms between queries (reads logs); true once the script printed its end mark */
  tick(): boolean;
  onChange?(info: JobInfo): void;
}

export type FollowResult =
  | { kind: "ended"; info: JobInfo; startedAt?: number }
  | { kind: "queue-timeout"; info: JobInfo; waitedMs: number }
  | { kind: "aborted"; info?: JobInfo; startedAt?: number }
  | { kind: "vanished"; startedAt?: number };

const FIRST_POLL_MS = 200;
/** consecutive failed queries before following gives up (spread over the growing poll interval) */
const TRANSIENT_TRIES = 8;
const NAP_MS = 250;

export async function followJob(query: JobQuery, id: string, opts: FollowOptions): Promise<FollowResult> {
  const submitted = Date.now();
  let delay = FIRST_POLL_MS;
  let last: JobInfo | undefined;
  let startedAt: number | undefined;
  let missing = 0;
  let failures = 0;
  let ending = false;
  for (;;) {
    if (opts.signal.aborted) return { kind: "aborted", info: last, startedAt };
    let info: JobInfo | undefined;
    try {
      info = await query.get(id);
      failures = 0;
    } catch (err) {
      if (!(err instanceof TransientError) || ++failures >= TRANSIENT_TRIES) throw err;
      await nap(delay, opts, ending);
      delay = Math.min(Math.round(delay * 1.5), opts.pollMaxMs);
      continue;
    }
    if (!info) {
      // squeue can miss a job for a moment right after sbatch; give up after a few tries
      if (++missing >= 5) return { kind: "vanished", startedAt };
    } else {
      missing = 0;
      if (info.state !== last?.state || info.reason !== last?.reason) opts.onChange?.(info);
      last = info;
      const phase = phaseOf(info.state);
      if (phase === "ended") return { kind: "ended", info, startedAt };
      if (phase === "running") startedAt ??= Date.now();
      if (phase === "pending" && Date.now() - submitted > opts.queueTimeoutMs) {
        return { kind: "queue-timeout", info, waitedMs: Date.now() - submitted };
      }
    }
    const woke = await nap(delay, opts, ending);
    ending ||= woke;
    // once the script said it is done, look again soon: the job is completing
    delay = woke ? FIRST_POLL_MS : Math.min(Math.round(delay * 1.5), opts.pollMaxMs);
  }
}

/**
 * Sleeps up to `ms`, ticking; returns early (true) when tick first reports the end mark, or on abort.
 * `ending`: the mark was seen before and tick keeps saying so. Returning early on it again made the
 * follow a loop without a single timer between queries: against the in-process fake Slurm, whose
 * job ends on a timer, it spun until the test worker had 3.6 GB (a CI run hung there), and against a
 * real one it asked squeue as fast as squeue answered while the job completed.
 */
async function nap(ms: number, opts: FollowOptions, ending: boolean): Promise<boolean> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (opts.signal.aborted) return false;
    if (opts.tick() && !ending) return true;
    await sleep(Math.max(0, Math.min(NAP_MS, until - Date.now())), opts.signal);
  }
  return opts.tick();
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const t = setTimeout(done, ms);
    function done() {
      clearTimeout(t);
      signal.removeEventListener("abort", done);
      resolve();
    }
    signal.addEventListener("abort", done, { once: true });
  });
}

/**
 * scancel, then wait until the job has left the queue (its processes are gone, not just
 * signalled: COMPLETING counts as still there), so that nothing outlives gpucheck's answer.
 */
export async function cancelJob(io: SlurmIo, query: JobQuery, id: string, waitMs = 30_000): Promise<JobInfo | undefined> {
  const r = await io.exec(["scancel", id]);
  if (r.spawnError || (r.code !== 0 && !UNKNOWN_JOB.test(r.stderr))) {
    throw new PlatformError(`scancel ${id} failed: ${(r.spawnError ?? r.stderr).trim() || `exit code ${r.code}`}: the job may still be queued or running`);
  }
  const until = Date.now() + waitMs;
  let info: JobInfo | undefined;
  while (Date.now() < until) {
    info = await query.get(id);
    if (!info || phaseOf(info.state) === "ended") return info;
    await Bun.sleep(200);
  }
  throw new PlatformError(`job ${id} is still ${info?.state ?? "listed"} ${Math.round(waitMs / 1000)} s after scancel`);
}
