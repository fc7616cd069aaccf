// A Slurm in this process, behind the platform's scheduler door (SlurmIo): sbatch runs the
// rendered batch script at once as a local bash process group, with the SLURM_* environment a
// job gets and fake `srun`/`scontrol` first on its PATH (test/fakes/slurm-bin/), so every rank
// really runs; squeue answers in the format captured from Slurm 22.05 (test/fixtures/slurm/
// squeue-*.txt); scancel ends the job's process group as slurmd would (SIGTERM, then SIGKILL
// after a KillWait of 1 s). What it does not have: a queue (every job starts at once), sacct and
// `scontrol show job` (answered "command not found"), sbcast (use platform.slurm.stageDir).
// A node can have its link cut: its tasks fail in any step it shares with other nodes, except a
// per-node sweep's one step, where each node's ranks meet on their own node.
import { spawn } from "node:child_process";
import { closeSync, openSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { IoResult, SlurmIo } from "../../plugins/slurm/cli.ts";
import { compressHostlist, expandHostlist } from "../../lib/core/hostlist.ts";

const BIN = join(import.meta.dir, "slurm-bin");
/** slurm.conf KillWait (default 30 s): short, as nothing here ignores SIGTERM on purpose */
const KILL_WAIT_MS = 1000;

interface Job {
  id: string;
  nodes: string[];
  pgid: number;
  state: "RUNNING" | "COMPLETING" | "COMPLETED" | "FAILED" | "CANCELLED";
  cancelled: boolean;
  exited: Promise<void>;
}

export class FakeSlurm implements SlurmIo {
  readonly calls: string[][] = [];
  /** sinfo's state and reason of a node, where not "idle|none" (e.g. "down*|Not responding") */
  readonly states = new Map<string, string>();
  private readonly jobs = new Map<string, Job>();
  // far from the ids of a real slurmctld on this machine: run.ts's exit hook scancels by id
  private next = 900_000_000 + (process.pid % 1000) * 1000;

  constructor(
    readonly nodes: string[] = ["node1", "node2", "node3", "node4"],
    /** nodes whose link is cut: a step on them alone runs, a step spanning them and others fails there (test/fakes/slurm-bin/srun) */
    readonly cut: string[] = [],
  ) {}

  /** jobs not yet ended */
  live(): string[] {
    return [...this.jobs.values()].filter((j) => j.state === "RUNNING" || j.state === "COMPLETING").map((j) => `job ${j.id} ${j.state}`);
  }

  async exec(argv: string[], opts: { cwd?: string; env?: Record<string, string> } = {}): Promise<IoResult> {
    this.calls.push(argv);
    const [cmd, ...args] = argv;
    if (cmd === "sbatch") return this.sbatch(args, opts.cwd ?? process.cwd(), opts.env ?? {});
    if (cmd === "squeue") return this.squeue(args);
    if (cmd === "scancel") return this.scancel(args[0]!);
    if (cmd === "sinfo") return this.sinfo(args);
    return { code: null, stdout: "", stderr: "", spawnError: `${cmd}: command not found` };
  }

  /** `given`: what sbatch's environment adds (the test's secrets); --export=ALL, as Slurm's default, hands the job all of it */
  private sbatch(args: string[], cwd: string, given: Record<string, string>): IoResult {
    const script = args.at(-1)!;
    const text = readFileSync(join(cwd, script), "utf8");
    const directive = (name: string) => new RegExp(`^#SBATCH --${name}="?([^"\\n]*)"?$`, "m").exec(text)?.[1];
    const count = Number(directive("nodes") ?? 1);
    const wanted = directive("nodelist");
    const nodes = wanted ? expandHostlist(wanted) : this.nodes.slice(0, count);
    if (nodes.length < count || nodes.some((n) => !this.nodes.includes(n))) {
      return { code: 1, stdout: "", stderr: "sbatch: error: Batch job submission failed: Requested node configuration is not available\n" };
    }
    const id = String(this.next++);
    const out = openSync(join(cwd, (directive("output") ?? "slurm-%j.out").replace("%j", id)), "a");
    const env = {
      ...(process.env as Record<string, string>),
      ...given,
      PATH: `${BIN}:${process.env.PATH}`,
      SLURM_JOB_ID: id,
      SLURM_JOBID: id,
      SLURM_JOB_NODELIST: nodes.join(","),
      SLURM_JOB_NUM_NODES: String(nodes.length),
      SLURM_NNODES: String(nodes.length),
      SLURM_CPUS_ON_NODE: "4",
      SLURM_SUBMIT_DIR: cwd,
      FAKE_SLURM_CUT: this.cut.join(","),
    };
    const child = spawn("bash", [script], { cwd, env, detached: true, stdio: ["ignore", out, out] });
    closeSync(out);
    const job: Job = { id, nodes, pgid: child.pid!, state: "RUNNING", cancelled: false, exited: Promise.resolve() };
    // The script's end, from whichever says so first: the child's "exit" event, or /proc showing
    // it ended. Bun was seen to miss both "close" and "exit" of batch scripts started side by side
    // (the processes left as zombies nobody reaped), which left their jobs RUNNING for ever and
    // stalled every test waiting on them.
    job.exited = new Promise((resolve) => {
      let done = false;
      const end = (code: number | null) => {
        if (done) return;
        done = true;
        clearInterval(poll);
        // slurmd kills what the batch script left behind in its job
        signalGroup(job.pgid, "SIGKILL");
        job.state = job.cancelled ? "CANCELLED" : code === 0 ? "COMPLETED" : "FAILED";
        resolve();
      };
      const poll = setInterval(() => {
        const code = endedCode(job.pgid);
        if (code !== undefined) end(code);
      }, 250);
      child.on("exit", (code) => end(code));
    });
    this.jobs.set(id, job);
    return { code: 0, stdout: `${id}\n`, stderr: "" };
  }

  private squeue(args: string[]): IoResult {
    const ids = args[args.indexOf("-j") + 1]!.split(",");
    const found = ids.map((id) => this.jobs.get(id)).filter((j) => j !== undefined);
    if (!found.length) return { code: 1, stdout: "", stderr: "slurm_load_jobs error: Invalid job id specified\n" };
    return { code: 0, stdout: found.map((j) => `${j.id}|${j.state}|None|${compressHostlist(j.nodes)}\n`).join(""), stderr: "" };
  }

  private scancel(id: string): IoResult {
    const job = this.jobs.get(id);
    if (!job) return { code: 1, stdout: "", stderr: `scancel: error: Kill job error on job id ${id}: Invalid job id specified\n` };
    if (job.state !== "RUNNING") return { code: 0, stdout: "", stderr: "" };
    job.cancelled = true;
    job.state = "COMPLETING";
    signalGroup(job.pgid, "SIGTERM");
    const kill = setTimeout(() => signalGroup(job.pgid, "SIGKILL"), KILL_WAIT_MS);
    void job.exited.then(() => clearTimeout(kill));
    return { code: 0, stdout: "", stderr: "" };
  }

  /** `sinfo -h -N -o '%N|%P|%T|%E' [-n list]`: every node in partition debug (the default), idle unless `states` says otherwise */
  private sinfo(args: string[]): IoResult {
    const n = args.indexOf("-n");
    const list = n >= 0 ? expandHostlist(args[n + 1]!) : this.nodes;
    return {
      code: 0,
      stdout: this.nodes
        .filter((x) => list.includes(x))
        .map((x) => `${x}|debug*|${this.states.get(x) ?? "idle|none"}\n`)
        .join(""),
      stderr: "",
    };
  }
}

/**
 * A process that ended and that nobody reaped, from /proc: its exit code (the last field of a
 * zombie's /proc/<pid>/stat is its wait status; null for a signal). Undefined while it runs, and
 * once it is gone: whoever reaped it emits "exit".
 */
function endedCode(pid: number): number | null | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch {
    return undefined;
  }
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  if (fields[0] !== "Z") return undefined;
  const status = Number(fields.at(-1));
  return status & 0x7f ? null : (status >> 8) & 0xff;
}

function signalGroup(pgid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(-pgid, sig);
  } catch {
    // the group is gone already
  }
}
