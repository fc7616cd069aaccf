// run(): one test as one Slurm job. Stage the workload, (per-node: pick the nodes with sinfo),
// write the script beside the logs, sbatch it, follow it, scancel it on Ctrl-C, timeout or a
// too-long wait in the queue, and turn what it left behind into UnitRuns.
import { spawnSync } from "node:child_process";
import { sha256 } from "../../lib/core/sha256.ts";
import { existsSync, mkdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { PlatformError } from "../../lib/core/errors.ts";
import type { UnitRun } from "../../lib/core/types.ts";
import { readOutput } from "../_shared/unit-log.ts";
import { stopMessage, stopReason, unitResult } from "../_shared/unit-result.ts";
import type { RunContext } from "../../lib/core/platform.ts";
import { type SlurmIo, must, systemIo } from "./cli.ts";
import { JobQuery, cancelJob, followJob, type FollowResult } from "./follow.ts";
import { expandHostlist } from "../../lib/core/hostlist.ts";
import { sweepNodes, unusable } from "./nodes.ts";
import { type OutcomeInput, type UnitPlan, unitRuns } from "./outcome.ts";
import { SINFO_FORMAT, parseSinfo } from "./query.ts";
import { END_MARK, groupNodes, groupsOf, jobName, renderSbatch, stagePath, SWEEP_SLOTS, sweepValues } from "./sbatch.ts";
import { bindSlots, complete } from "../../lib/core/slots.ts";
import type { SlurmSettings } from "./settings.ts";
import { stageArchive, stageShared } from "./stage.ts";
import { StepMarks } from "./step-marks.ts";
import { FileTail, RankTails } from "./tail.ts";
import { writePrivateFile } from "../../lib/core/private-fs.ts";

/** Jobs submitted and not yet seen ending: cancelled even if gpucheck dies without cleaning up. */
const live = new Set<string>();
let exitHook = false;

function track(id: string): void {
  live.add(id);
  if (exitHook) return;
  exitHook = true;
  process.once("exit", () => {
    if (live.size) spawnSync("scancel", [...live], { stdio: "ignore", timeout: 10_000 });
  });
}

/** One probe of which query commands work, per scheduler door, for the whole run. */
const queries = new WeakMap<SlurmIo, JobQuery>();
function queryFor(io: SlurmIo): JobQuery {
  if (!queries.has(io)) queries.set(io, new JobQuery(io));
  return queries.get(io)!;
}

export async function runSlurm(ctx: RunContext<SlurmSettings>, io: SlurmIo = systemIo): Promise<UnitRun[]> {
  const { test, settings: s, logDir } = ctx;
  mkdirSync(logDir, { recursive: true });
  const began = new Date().toISOString();
  const placeholder = (unit: string, hosts: string[], status: UnitRun["status"], message: string): UnitRun =>
    unitResult({ unit, hosts, startedAt: began, decided: { status, message } });

  // an isolating round's groups are known: each a step of its own on its nodes
  let groups = groupsOf(test);
  let sweep: string[] | undefined;
  const aside: UnitRun[] = [];
  if (groups) {
    const down = await unusableNodes(io, groupNodes(groups));
    const held = (g: { nodes: string[] }) => g.nodes.filter((n) => down.has(n));
    for (const g of groups.filter((g) => held(g).length)) {
      const lost = held(g);
      const why = lost.map((n) => `${n} is ${down.get(n)}`).join("; ");
      aside.push(unitResult({ unit: g.name, hosts: g.nodes, startedAt: began, infra: [`${why}: not submitted (Slurm would hold the round's job for it)`], lost }));
    }
    groups = groups.filter((g) => !held(g).length);
    if (!groups.length) return aside;
    if (aside.length) {
      ctx = { ...ctx, test: { ...test, units: groups } };
      ctx.note(`${aside.length} group(s) not submitted: a node Slurm cannot schedule on (${[...down.keys()].join(", ")})`);
    }
  }
  let units: UnitPlan[] = groups ? groups.map((u) => ({ unit: u.name, hosts: u.nodes })) : [{ unit: "all", hosts: [] }];
  if (test.perNode) {
    const nodelist = ctx.cli.hosts?.length ? ctx.cli.hosts.join(",") : s.nodelist;
    const argv = ["sinfo", "-h", "-N", "-o", SINFO_FORMAT, ...(s.partition ? ["-p", s.partition] : []), ...(nodelist ? ["-n", nodelist] : [])];
    const found = sweepNodes(parseSinfo(await must(io, argv)), { partition: s.partition, nodelist, exclude: s.exclude });
    const where = s.partition ? `partition ${s.partition}` : "the default partition";
    aside.push(...found.skipped.map(({ node, why }) => placeholder(node, [node], "skipped", `${node} is ${why}`)));
    aside.push(...found.unknown.map((node) => placeholder(node, [node], "infra", `${node} is not a node of ${where} (sinfo does not list it)`)));
    if (!found.usable.length) {
      if (!aside.length) throw new PlatformError(`no nodes to sweep: sinfo lists none in ${where}${nodelist ? ` matching ${nodelist}` : ""}`);
      return aside;
    }
    sweep = found.usable;
    units = sweep.map((n) => ({ unit: n, hosts: [n] }));
    ctx.note(`per-node sweep over ${sweep.length} node(s)${aside.length ? `, ${aside.length} not usable` : ""}`);
  }

  const archive = s.stageDir ? undefined : stageArchive(logDir, ctx.workloadHash, ctx.workload);
  if (s.stageDir) stageShared(s.stageDir, ctx.workloadHash, ctx.workload);
  // the script plan printed, with the sweep's nodes bound into its slots
  writePrivateFile(join(logDir, "job.sbatch"), complete(bindSlots(renderSbatch(ctx), sweep ? sweepValues(sweep) : {}), Object.values(SWEEP_SLOTS), "the batch script"));
  try {
    if (ctx.signal.aborted) {
      const stopped = { by: stopReason(ctx.signal), timeoutMs: test.timeoutMs, what: "stopped before submission" };
      return [...units.map((u) => unitResult({ unit: u.unit, hosts: u.hosts, startedAt: began, stopped })), ...aside];
    }
    let id: string;
    try {
      id = await submit(io, ctx);
    } catch (err) {
      if (!(err instanceof PlatformError)) throw err;
      return [...units.map((u) => placeholder(u.unit, u.hosts, "infra", err.message)), ...aside];
    }
    return [...(await follow(ctx, io, id, units, began)), ...aside];
  } finally {
    if (archive) rmSync(archive, { force: true });
  }
}

/**
 * The nodes of `nodes` that Slurm cannot schedule on now (down, drained, not responding), with why.
 * A round's groups share one job, and a job that names such a node pends for it: its good groups
 * would wait out the timeout beside it (a node frozen in round 1 is DOWN by round 2). Unknown when
 * sinfo does not answer: then every group is submitted, as before.
 */
async function unusableNodes(io: SlurmIo, nodes: string[]): Promise<Map<string, string>> {
  const r = await io.exec(["sinfo", "-h", "-N", "-o", SINFO_FORMAT, "-n", nodes.join(",")]);
  const down = new Map<string, string>();
  if (r.spawnError || r.code !== 0) return down;
  for (const row of parseSinfo(r.stdout)) {
    const why = unusable(row.state, row.reason);
    if (why && nodes.includes(row.node) && !down.has(row.node)) down.set(row.node, why);
  }
  return down;
}

async function submit(io: SlurmIo, ctx: RunContext<SlurmSettings>): Promise<string> {
  // not tied to ctx.signal: a Ctrl-C during sbatch must not lose the id of a job it did submit
  const comment = `gpucheck run ${sha256(ctx.outDir).slice(0, 12)}`;
  // the test's secrets travel in sbatch's environment, never in the script or on this command line
  // (sbatch.ts); --export=ALL on the command line wins over an SBATCH_EXPORT the operator may have set
  const secrets = Object.fromEntries((ctx.launch.secret ?? []).map((k) => [k, ctx.launch.env[k]!]));
  const exported = Object.keys(secrets).length > 0;
  const argv = ["sbatch", "--parsable", `--comment=${comment}`, ...(exported ? ["--export=ALL"] : []), "job.sbatch"];
  const r = await io.exec(argv, { cwd: ctx.logDir, ...(exported && { env: secrets }) });
  const id = /^(\d+)(;\S+)?\s*$/.exec(r.stdout)?.[1];
  if (r.spawnError || r.code !== 0 || !id) {
    const why = (r.spawnError ?? (r.stderr.trim() || r.stdout.trim())) || `exit code ${r.code}`;
    throw new PlatformError(`sbatch refused ${jobName(ctx.suite.name, ctx.test.name)}: ${why.split("\n").pop()} (script: ${join(ctx.logDir, "job.sbatch")})`);
  }
  track(id);
  ctx.note(`submitted Slurm job ${id} (${jobName(ctx.suite.name, ctx.test.name)})`);
  return id;
}

async function follow(ctx: RunContext<SlurmSettings>, io: SlurmIo, id: string, units: UnitPlan[], began: string): Promise<UnitRun[]> {
  const query = queryFor(io);
  const batchPath = join(ctx.logDir, `slurm-${id}.out`);
  const batch = new FileTail(batchPath);
  const tails = new RankTails(
    ctx.logDir,
    units.map((u) => ({ unit: u.unit, ranks: u.unit === "all" ? ctx.test.worldSize : u.hosts.length * ctx.test.ranksPerNode })),
    ctx.onLine,
  );
  const marks = new StepMarks(
    units.map((u) => ({ unit: u.unit, hosts: u.hosts, ranks: u.unit === "all" ? ctx.test.worldSize : u.hosts.length * ctx.test.ranksPerNode })),
    began,
    (run) => ctx.unitEnded?.(run),
  );
  let endSeen = false;
  const tick = () => {
    tails.poll();
    const lines = batch.read();
    marks.see(lines);
    if (lines.includes(END_MARK)) endSeen = true;
    return endSeen;
  };
  let res: FollowResult | { kind: "lost"; why: string };
  try {
    res = await followJob(query, id, {
      signal: ctx.signal,
      queueTimeoutMs: ctx.suite.queueTimeoutMs,
      pollMaxMs: ctx.settings.pollMaxS * 1000,
      tick,
      onChange: (j) => ctx.note(`job ${id} ${j.state}${j.reason ? ` (${j.reason})` : ""}${j.nodes ? ` on ${j.nodes}` : ""}`),
    });
  } catch (err) {
    // a job gpucheck cannot follow is a job nobody would stop: cancel it
    res = { kind: "lost", why: (err as Error).message };
  }
  let state = "info" in res ? (res.info?.state ?? "") : "";
  const cancelled = cancelReason(ctx, res);
  let gone = true;
  if (cancelled) {
    try {
      state = (await cancelJob(io, query, id))?.state ?? state;
    } catch (err) {
      cancelled.detail += `; ${(err as Error).message}`;
      gone = false; // the exit hook tries scancel once more
    }
  }
  if (gone) live.delete(id);
  tails.finish();
  batch.finish();
  // ranks go to a step's nodes in the job's node order (Slurm sorts them), known once it ran
  const allocated = "info" in res && res.info ? expandHostlist(res.info.nodes) : [];
  return unitRuns({
    jobId: id,
    units: units.map((u) => (u.unit === "all" ? { unit: "all", hosts: allocated.slice(0, ctx.test.nodes) } : { unit: u.unit, hosts: inJobOrder(u.hosts, allocated) })),
    ranksPerNode: ctx.test.ranksPerNode,
    logDir: ctx.logDir,
    batch: existsSync(batchPath) ? readFileSync(batchPath, "utf8") : undefined,
    state,
    cancelled,
    readLog: (p) => (existsSync(p) ? readFileSync(p, "utf8") : ""),
    readOutput,
    python: ctx.launch.python,
    stage: ctx.settings.stageDir ? `${stagePath(ctx.settings.stageDir, ctx.workloadHash)} (platform.slurm.stageDir)` : `/tmp/gpucheck-${id} (sbcast)`,
    startedAt: "startedAt" in res && res.startedAt ? new Date(res.startedAt).toISOString() : began,
    endedAt: new Date().toISOString(),
  });
}

/** A step's nodes as Slurm orders them (the job's order); as planned while the job's nodes are unknown. */
function inJobOrder(nodes: string[], job: string[]): string[] {
  if (!nodes.every((n) => job.includes(n))) return nodes;
  return [...nodes].sort((a, b) => job.indexOf(a) - job.indexOf(b));
}

/** Why gpucheck cancels the job, or undefined when the job ended on its own. */
function cancelReason(ctx: RunContext<SlurmSettings>, res: FollowResult | { kind: "lost"; why: string }): OutcomeInput["cancelled"] {
  const secs = (ms: number) => `${Math.round(ms / 1000)} s`;
  switch (res.kind) {
    case "queue-timeout":
      return {
        by: "queue-timeout",
        detail: `pending for ${secs(res.waitedMs)} (Slurm reason: ${res.info.reason || "none given"}), longer than the queue timeout of ${secs(ctx.suite.queueTimeoutMs)}: gpucheck cancelled it`,
      };
    case "lost":
      return { by: "lost", detail: `lost track of the job (${res.why}): gpucheck cancelled it` };
    case "aborted": {
      const by = stopReason(ctx.signal);
      return { by, detail: stopMessage(by, ctx.test.timeoutMs, "gpucheck cancelled the job") };
    }
    default:
      return undefined;
  }
}
