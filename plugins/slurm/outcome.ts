// What happened to each unit, from what the job left behind: the batch output (the script's
// step marks and srun's own reports of failed tasks), the rank logs, and the job's final state.
// Pure: files come in as text.
import type { RankLog, UnitRun, UnitStatus } from "../../lib/core/types.ts";
import { lastWorkloadError } from "../_shared/rank-lines.ts";
import { TAIL_LINES, rankLogPath, tailLine } from "../_shared/unit-log.ts";
import { failureMessage, unitResult } from "../_shared/unit-result.ts";
import { expandRanges } from "../../lib/core/hostlist.ts";
import { STAGE_FAILED, STEP_MARK } from "./sbatch.ts";
import { baseState, endedStatus } from "./states.ts";

export interface TaskReport {
  node: string;
  tasks: number[];
  /** the task's exit code; 128 + signal number when a signal ended it (null if the signal is unknown) */
  exitCode: number | null;
  /** "exit code 3", "Killed" */
  how: string;
}

export interface BatchReport {
  /** unit → its step's exit status, as the script printed it */
  steps: Map<string, number>;
  /** a per-node sweep's units (one step for all nodes): unit → rank within the node → its exit status */
  rankExits: Map<string, Map<number, number>>;
  tasks: TaskReport[];
  stageFailed?: string;
  /** srun/sbatch complaints worth showing, in order */
  errors: string[];
}

const SIGNALS: Record<string, number> = {
  Hangup: 1,
  Interrupt: 2,
  Quit: 3,
  "Illegal instruction": 4,
  "Trace/breakpoint trap": 5,
  Aborted: 6,
  "Bus error": 7,
  "Floating point exception": 8,
  Killed: 9,
  "User defined signal 1": 10,
  "Segmentation fault": 11,
  "User defined signal 2": 12,
  "Broken pipe": 13,
  "Alarm clock": 14,
  Terminated: 15,
};

/** srun: "srun: error: node2: tasks 0-1,3: Exited with exit code 3" / "...: task 2: Killed". */
export function parseBatchOutput(text: string): BatchReport {
  const report: BatchReport = { steps: new Map(), rankExits: new Map(), tasks: [], errors: [] };
  const mark = new RegExp(`^${STEP_MARK} unit=(\\S+)(?: rank=(\\d+))? exit=(\\d+)$`);
  for (const line of text.split("\n")) {
    const step = mark.exec(line);
    if (step) {
      const [, unit, rank, exit] = step;
      if (rank === undefined) report.steps.set(unit!, Number(exit));
      else {
        if (!report.rankExits.has(unit!)) report.rankExits.set(unit!, new Map());
        report.rankExits.get(unit!)!.set(Number(rank), Number(exit));
      }
      continue;
    }
    // the first mark says why (a node's own refusal); the batch script's own one after it only that staging failed
    if (line.startsWith(`${STAGE_FAILED}: `)) report.stageFailed ??= line.slice(STAGE_FAILED.length + 2);
    const task = /^srun: error: (\S+): tasks? ([\d,-]+): (.*)$/.exec(line);
    if (task) {
      const [, node, ranges, how] = task;
      const code = /^Exited with exit code (\d+)$/.exec(how!);
      const sig = SIGNALS[how!];
      report.tasks.push({
        node: node!,
        tasks: expandRanges(ranges!).map(Number),
        exitCode: code ? Number(code[1]) : sig ? 128 + sig : null,
        how: code ? `exit code ${code[1]}` : how!,
      });
    }
    if (/^(srun|sbatch|sbcast|slurmstepd(-\S+)?): (error|fatal)/.test(line) || line.startsWith(`${STAGE_FAILED}: `)) report.errors.push(line);
  }
  return report;
}

export interface UnitPlan {
  unit: string;
  /** the unit's nodes in rank order: rank r runs on hosts[floor(r / ranksPerNode)] (block distribution) */
  hosts: string[];
}

export interface OutcomeInput {
  jobId: string;
  units: UnitPlan[];
  ranksPerNode: number;
  logDir: string;
  /** the batch output; undefined when the file never appeared */
  batch: string | undefined;
  /** the job's last known state ("" when no source knew it) */
  state: string;
  /** set when gpucheck cancelled the job: why (queue-timeout and lost are infra problems) */
  cancelled?: { by: "timeout" | "cancelled" | "queue-timeout" | "lost"; detail: string };
  readLog(path: string): string;
  /** the text the parser reads from rank 0's log (unit-log readOutput: whole, or its end with a note); readLog's when absent */
  readOutput?(path: string): string;
  /** what ran on the nodes, for messages when they could not start it */
  python: string;
  /** where the nodes import the workload from, e.g. "/shared/gpucheck-0123 (platform.slurm.stageDir)" */
  stage: string;
  startedAt: string;
  endedAt: string;
}

export function unitRuns(input: OutcomeInput): UnitRun[] {
  const report = parseBatchOutput(input.batch ?? "");
  return input.units.map((u) => unitRun(input, report, u));
}

function unitRun(input: OutcomeInput, report: BatchReport, u: UnitPlan): UnitRun {
  const nranks = u.hosts.length * input.ranksPerNode;
  const perRank = report.rankExits.get(u.unit);
  const stepExit = perRank ? sweepExit(perRank, nranks) : report.steps.get(u.unit);
  // a sweep's srun numbers tasks across the whole job: its own marks say which rank of the node failed
  const mine = perRank ? markedFailures(perRank, u.hosts[0] ?? u.unit) : report.tasks.filter((t) => u.hosts.includes(t.node));
  const ranks: RankLog[] = Array.from({ length: nranks }, (_, rank) => {
    const host = u.hosts[Math.floor(rank / input.ranksPerNode)]!;
    const task = mine.find((t) => t.node === host && t.tasks.includes(rank));
    const exitCode = perRank ? (perRank.get(rank) ?? null) : task ? task.exitCode : stepExit === undefined ? null : 0;
    return { rank, host, path: rankLogPath(`${input.logDir}/${u.unit}`, rank), exitCode };
  });
  const texts = ranks.map((r) => input.readLog(r.path));
  // with --kill-on-bad-exit the culprit exits with its own code and srun then kills its peers
  // (reported as signals): the first plain exit is the cause, else the first report
  const cause = mine.find((t) => t.exitCode !== null && t.exitCode < 128) ?? mine[0];
  const failedRank = cause ? ranks.find((r) => r.host === cause.node && cause.tasks.includes(r.rank)) : undefined;
  // srun's reports of tasks on other units' nodes are theirs (a round's groups share the batch output)
  const errors = report.errors.filter((l) => !l.startsWith("srun: error: ") || u.hosts.some((h) => l.startsWith(`srun: error: ${h}:`)) || u.unit === "all");
  const { status, message } = verdict(input, { ...report, errors }, u, stepExit, cause, failedRank, texts);
  return unitResult({
    unit: u.unit,
    hosts: u.hosts,
    startedAt: input.startedAt,
    endedAt: input.endedAt,
    ranks,
    output: ranks.length && input.readOutput ? input.readOutput(ranks[0]!.path) : (texts[0] ?? ""),
    tail: tailOf(errors, texts, ranks, failedRank?.rank),
    decided: { status, ...(message ? { message } : {}) },
  });
}

/**
 * A sweep's node has failed once one of its ranks printed a failing mark (its peers may wait on it
 * until the timeout; their ending adds nothing), and passed once every rank printed 0.
 */
function sweepExit(perRank: Map<number, number>, nranks: number): number | undefined {
  const failed = [...perRank.entries()].sort(([a], [b]) => a - b).find(([, code]) => code !== 0);
  if (failed) return failed[1];
  return perRank.size < nranks ? undefined : 0;
}

/** The marks of a sweep's node that say a rank failed, as srun's own reports would (128 + n: signal n). */
function markedFailures(perRank: Map<number, number>, node: string): TaskReport[] {
  const name = (sig: number) => Object.entries(SIGNALS).find(([, n]) => n === sig)?.[0];
  return [...perRank.entries()]
    .sort(([a], [b]) => a - b)
    .filter(([, code]) => code !== 0)
    .map(([rank, code]) => ({ node, tasks: [rank], exitCode: code, how: (code > 128 && name(code - 128)) || `exit code ${code}` }));
}

function verdict(
  input: OutcomeInput,
  report: BatchReport,
  u: UnitPlan,
  stepExit: number | undefined,
  cause: TaskReport | undefined,
  failedRank: RankLog | undefined,
  texts: string[],
): { status: UnitStatus; message?: string } {
  const job = `job ${input.jobId}`;
  const ended = input.state ? endedStatus(input.state) : undefined;
  if (stepExit === 0) return { status: "completed" };
  if (input.cancelled) {
    // a step that gpucheck's scancel cut short reads as failed to the script; it is not the test's fault
    const { by } = input.cancelled;
    const status = by === "queue-timeout" || by === "lost" ? "infra" : by;
    return { status, message: `${input.cancelled.detail} (${job})` };
  }
  // a step that ended non-zero because Slurm killed the job (time limit, lost node) is the job's story
  if (stepExit !== undefined && ended?.status !== "infra" && ended?.status !== "timeout") {
    if (cause && failedRank) {
      const text = texts[failedRank.rank] ?? "";
      // the node could not start the workload at all: an installation problem, not a test result
      if (cause.exitCode === 127 && /^gpucheck-rank: line \d+: (exec: .*: not found|.*: No such file or directory)$/m.test(text)) {
        return {
          status: "infra",
          message: `${failedRank.host} has no ${JSON.stringify(input.python)} (exit code 127 on rank ${failedRank.rank}): set the test's python or --python (${job})`,
        };
      }
      if (/No module named '?gpucheck_workload/.test(text)) {
        return { status: "infra", message: `${failedRank.host} cannot import gpucheck_workload from ${input.stage}: the nodes must see it at the same path (${job})` };
      }
      return {
        status: "failed",
        message: failureMessage({
          who: `rank ${failedRank.rank}`,
          on: failedRank.host,
          how: `failed with ${cause.how}`,
          reason: lastWorkloadError(text),
          note: `${job}${jobWhat(input.state)}`,
        }),
      };
    }
    return { status: "failed", message: `srun exited with ${stepExit} on ${u.hosts.join(",")} (${job}${jobWhat(input.state)})${lastError(report)}` };
  }
  if (report.stageFailed) return { status: "infra", message: `staging the workload failed on the nodes (${report.stageFailed}; ${job})${lastError(report)}` };
  if (input.batch === undefined) {
    return {
      status: "infra",
      message: `${job} ${input.state ? `ended ${input.state}` : "ended"} without writing slurm-${input.jobId}.out in ${input.logDir}: the nodes must see this directory at the same path (a shared filesystem)`,
    };
  }
  if (ended && ended.status !== "completed" && ended.status !== "failed") return { status: ended.status, message: `${job} ${ended.what}${lastError(report)}` };
  return { status: "infra", message: `${job} ${input.state ? `ended ${input.state}` : "ended"} before its step on ${u.hosts.join(",")} reported${lastError(report)}` };
}

/** What the job's state adds to a rank's failure, e.g. "ran out of memory (OUT_OF_MEMORY)". */
function jobWhat(state: string): string {
  return state && !["FAILED", "COMPLETED"].includes(baseState(state)) ? ` ${endedStatus(state).what}` : "";
}

function lastError(report: BatchReport): string {
  const l = report.errors.at(-1);
  return l ? `: ${l}` : "";
}

/** Scheduler complaints, then the failing rank's last lines, then rank 0's: TAIL_LINES lines. */
function tailOf(errors: string[], texts: string[], ranks: RankLog[], failed?: number): string {
  const last = (rank: number, n: number) =>
    (texts[rank] ?? "")
      .split("\n")
      .filter(Boolean)
      .slice(-n)
      .map((l) => tailLine(rank, l, ranks[rank]?.host));
  const out = [...errors.slice(-10)];
  if (failed !== undefined && failed !== 0) out.push(...last(failed, 15));
  out.push(...last(0, TAIL_LINES - out.length));
  return out.slice(-TAIL_LINES).join("\n");
}
