// renderSbatch: a planned test → the exact batch script gpucheck submits (pure; `gpucheck plan`
// prints it). The job is submitted from the test's log directory, so every path in the script
// is relative to it: slurm-<jobid>.out (the batch script's own output, where srun reports failed
// tasks) and <unit>/rank-<N>.log (one file per rank, written by srun on the nodes, or in a per-node
// sweep by each task's shell; spelled "./all/…" because srun reads an --output starting with "all"
// as its all-tasks mode).
import { SuiteError } from "../../lib/core/errors.ts";
import type { RenderContext, TestToRender } from "../../lib/core/platform.ts";
import type { PlannedUnit } from "../../lib/core/types.ts";
import { compressHostlist } from "../../lib/core/hostlist.ts";
import { directive, quote, word } from "./quote.ts";
import { slot } from "../../lib/core/slots.ts";
import type { SlurmSettings } from "./settings.ts";

/** Printed by the script after each unit's step, read back by outcome.ts. */
export const STEP_MARK = "gpucheck-step";
export const END_MARK = "gpucheck-job-end";
export const STAGE_FAILED = "gpucheck-stage-failed";

export function jobName(suite: string, test: string): string {
  return `gpucheck-${suite}-${test}`;
}

/** "workload-<hash>.tar.gz": the archive gpucheck writes beside the script when it stages with sbcast. */
export function workloadArchive(hash: string): string {
  return `workload-${hash.slice(0, 16)}.tar.gz`;
}

export function stagePath(stageDir: string, hash: string): string {
  return `${stageDir.replace(/\/+$/, "")}/gpucheck-${hash.slice(0, 16)}`;
}

/** Slurm --time from a timeout: whole minutes, rounded up, as [D-]H:MM:SS. */
export function slurmTime(ms: number): string {
  const min = Math.max(1, Math.ceil(ms / 60_000));
  const d = Math.floor(min / 1440);
  const h = Math.floor((min % 1440) / 60);
  const hms = `${h}:${String(min % 60).padStart(2, "0")}:00`;
  return d ? `${d}-${hms.padStart(8, "0")}` : hms;
}

/** Per-node: the nodes are the usable ones sinfo lists at submission, so the plan names them as slots. */
export const SWEEP_SLOTS = { count: "sweepNodeCount", list: "sweepNodelist" } as const;

/** The sweep's slots as their directives would write them (renderSbatch(ctx, sweep) exactly). */
export function sweepValues(sweep: string[]): Record<string, string> {
  return { [SWEEP_SLOTS.count]: word(String(sweep.length)), [SWEEP_SLOTS.list]: word(compressHostlist(sweep)) };
}

/**
 * The units a test runs as steps of their own beside each other: an isolating round's groups of
 * nodes (lib/plan/pattern.ts). Undefined for a whole-cluster test (its one unit "all") and a
 * per-node one (its nodes are sinfo's at submission).
 */
export function groupsOf(test: Pick<TestToRender, "perNode" | "units">): PlannedUnit[] | undefined {
  const units = test.units;
  if (test.perNode || !units?.length || (units.length === 1 && units[0]!.name === "all")) return undefined;
  return units;
}

/** Every node of the groups, once: the job's allocation. */
export function groupNodes(groups: PlannedUnit[]): string[] {
  return [...new Set(groups.flatMap((u) => u.nodes))];
}

/** `nodes`: the job's nodes when the script names them (a sweep's, a round's groups'). */
function headerLines(ctx: RenderContext<SlurmSettings>, nodes?: string[]): string[] {
  const { test, settings: s } = ctx;
  const nodelist = ctx.cli.hosts?.length ? ctx.cli.hosts.join(",") : s.nodelist;
  const out = [
    directive("job-name", jobName(ctx.suite.name, test.name)),
    nodes ? directive("nodes", nodes.length) : test.perNode ? `#SBATCH --nodes=${slot(SWEEP_SLOTS.count)}` : directive("nodes", test.nodes),
    directive("ntasks-per-node", test.ranksPerNode),
  ];
  if (test.gpusPerNode > 0) out.push(directive("gpus-per-node", test.gpusPerNode));
  if (s.cpusPerTask !== undefined) out.push(directive("cpus-per-task", s.cpusPerTask));
  out.push(directive("time", slurmTime(test.timeoutMs)));
  if (s.exclusive) out.push(directive("exclusive"));
  // a requeued job would start again behind gpucheck's back after a node failure
  out.push(directive("no-requeue"));
  // a node lost under one group ends that group's step, not the allocation of the round's others
  if (groupsOf(test)) out.push(directive("no-kill"));
  for (const key of ["partition", "account", "reservation", "qos", "constraint"] as const) {
    if (s[key] !== undefined) out.push(directive(key, s[key]));
  }
  // Slurm requires a job's node count to be a multiple of its segment size: a job of fewer nodes (a
  // per-tray test of the rack suite, a per-node sweep) is placed without it
  const count = nodes ? nodes.length : test.perNode ? undefined : test.nodes;
  if (s.segment !== undefined && count !== undefined && count % s.segment === 0) out.push(directive("segment", s.segment));
  if (nodes) out.push(directive("nodelist", compressHostlist(nodes)));
  else if (test.perNode) out.push(`#SBATCH --nodelist=${slot(SWEEP_SLOTS.list)}`);
  else {
    if (nodelist !== undefined) out.push(directive("nodelist", nodelist));
    if (s.exclude !== undefined) out.push(directive("exclude", s.exclude));
  }
  out.push(directive("output", "slurm-%j.out"));
  out.push(...s.sbatch.map((line) => `#SBATCH ${line}`));
  return out;
}

/**
 * /tmp/gpucheck-<job id> is a guessable path (job ids count up): another user of the node can make
 * it first, as a directory of theirs or a symlink, and wait for our code to go on PYTHONPATH from it.
 * The stage is made here with mkdir (0700, never -p on the stage itself) and then used only when it is
 * a real directory of this user that nobody else can write; in sticky /tmp nobody else can swap it
 * after that check. The archive sbcast wrote must be ours too (a file planted there stays another
 * user's after sbcast --force). On nodes sharing one /tmp the first to come makes it, the others find
 * it theirs. The refusal is one line in the batch output naming the node and the path (outcome.ts).
 */
export const STAGE_CHECK = [
  `mkdir -m 0700 "$0" 2>/dev/null`,
  `for f in "$0" "$0.tar.gz"; do`,
  `  if [ -L "$f" ] || [ ! -O "$f" ] || [ -n "$(find "$f" -maxdepth 0 -perm /022 2>/dev/null)" ]; then`,
  `    echo "${STAGE_FAILED}: $SLURMD_NODENAME: $f is not private to this user (owner $(stat -c %U "$f" 2>/dev/null), mode $(stat -c %a "$f" 2>/dev/null)$([ -L "$f" ] && echo ", a symlink")): gpucheck unpacks and runs nothing from it; remove it (or ask the admin of the node to)"`,
  `    exit 1`,
  `  fi`,
  `done`,
];

/**
 * Run on each node before unpacking: a job cancelled before its last step could not remove its
 * copy (no step starts in a cancelled job), so the next job of the same user removes the copies
 * of jobs Slurm says have ended. Anything else (squeue missing, the controller away) keeps them.
 */
const SWEEP_AND_UNPACK = [
  `for d in /tmp/gpucheck-[0-9]*; do`,
  `  id=\${d#/tmp/gpucheck-}; id=\${id%.tar.gz}`,
  `  case $id in ""|*[!0-9]*) continue;; esac`,
  `  { [ "$id" = "$SLURM_JOB_ID" ] || [ ! -O "$d" ]; } && continue`,
  `  case $(squeue -h -t all -j "$id" -o %T 2>&1) in`,
  `    *"Invalid job id"*|COMPLETED|CANCELLED*|FAILED|TIMEOUT|NODE_FAIL|PREEMPTED|OUT_OF_MEMORY|BOOT_FAIL|DEADLINE) rm -rf "$d";;`,
  `  esac`,
  `done`,
  ...STAGE_CHECK,
  `mkdir -p "$0/$SLURMD_NODENAME" && tar -xzf "$0.tar.gz" -C "$0/$SLURMD_NODENAME"`,
].join("\n");

function stagingLines(ctx: RenderContext<SlurmSettings>): string[] {
  const { stageDir } = ctx.settings;
  if (stageDir) {
    return ["# the workload, staged once per content on the shared path", `export PYTHONPATH=${word(stagePath(stageDir, ctx.workloadHash))}`];
  }
  const archive = workloadArchive(ctx.workloadHash);
  return [
    `# the workload: gpucheck wrote ${archive} here; sbcast copies it to each node's /tmp, one task per node unpacks it`,
    `export GPUCHECK_STAGE=/tmp/gpucheck-$SLURM_JOB_ID`,
    `sbcast --force ${word(archive)} "$GPUCHECK_STAGE.tar.gz" || { echo "${STAGE_FAILED}: sbcast"; exit 90; }`,
    `srun --nodes="$SLURM_JOB_NUM_NODES" --ntasks="$SLURM_JOB_NUM_NODES" --ntasks-per-node=1 --kill-on-bad-exit=1 \\`,
    `  /bin/bash -c '${SWEEP_AND_UNPACK}' "$GPUCHECK_STAGE" \\`,
    `  || { echo "${STAGE_FAILED}: unpacking on the nodes"; exit 90; }`,
  ];
}

/**
 * srun options and the command of a rank step, after --output. `env` names the shell variable
 * holding the script each task runs before the workload; a sweep's step keeps going past a node's
 * failure (no --kill-on-bad-exit): each node is a world of its own.
 */
function rankCommand(ctx: RenderContext<SlurmSettings>, env = "rank_env"): string {
  const s = ctx.settings;
  const image = ctx.cli.image ?? s.container?.image;
  const runtime = s.container?.runtime ?? "pyxis";
  const stage = s.stageDir ? word(stagePath(s.stageDir, ctx.workloadHash)) : `"$GPUCHECK_STAGE"`;
  const mounts = s.container?.mounts ?? [];
  // Each rank on its own cores: unbound, NCCL's proxy thread and the data loader share (or
  // migrate across) every core with the other ranks. Since Slurm 22.05 srun no longer inherits
  // sbatch's --cpus-per-task, so the step says it. A suite's srun options come later and win
  // (e.g. --cpu-bind=none, or --cpu-bind=map_ldom:… for a node's own GPU↔NUMA map).
  const opts: string[] = [...(env === "rank_env" ? ["--kill-on-bad-exit=1"] : []), `--cpus-per-task=${s.cpusPerTask ?? '"$GPUCHECK_CPUS_PER_TASK"'}`, "--cpu-bind=cores"];
  const prefix: string[] = [];
  // a sweep's task writes its own log from the job's directory (srun wrote the others' from outside
  // the container): pyxis must mount that directory and start there
  const sweep = env === "node_env";
  if (image && runtime === "pyxis") {
    const jobDir = sweep ? [`"$SLURM_SUBMIT_DIR":"$SLURM_SUBMIT_DIR"`] : [];
    opts.push(`--container-image=${word(image)}`, `--container-mounts=${[...mounts.map(word), `${stage}:${stage}`, ...jobDir].join(",")}`);
    if (sweep) opts.push(`--container-workdir="$SLURM_SUBMIT_DIR"`);
  } else if (image) {
    prefix.push(runtime, "exec");
    if (ctx.test.gpusPerNode > 0) prefix.push("--nv");
    for (const m of [...mounts.map(word), stage]) prefix.push("--bind", m);
    prefix.push(word(image));
  }
  opts.push(...s.srun.map(word));
  const argv = [ctx.launch.python, ...ctx.launch.args].map(word);
  const wrapper = `/bin/bash -c "$${env}" gpucheck-rank`;
  // apptainer/singularity: the sweep's shell stays outside the container, so its log is the host's
  return (sweep ? [...opts, wrapper, ...prefix, ...argv] : [...opts, ...prefix, wrapper, ...argv]).join(" ");
}

/**
 * The batch script for one test: one step over the whole job; per node, one step per node (`sweep`
 * the nodes it covers; absent: named slots, see SWEEP_SLOTS); an isolating round, one step per group.
 */
export function renderSbatch(ctx: RenderContext<SlurmSettings>, sweep?: string[]): string {
  const { test, launch } = ctx;
  const sbcast = !ctx.settings.stageDir;
  const groups = groupsOf(test);
  const jobNodes = sweep ?? (groups && groupNodes(groups));
  const R = test.ranksPerNode;
  const what = test.perNode
    ? `per node, ${R} rank(s) on each`
    : groups
      ? `${groups.length} group(s) side by side on ${jobNodes!.length} node(s), ${R} rank(s) per node`
      : `${test.nodes} node(s) x ${R} rank(s)`;
  const lines = ["#!/bin/bash", `# gpucheck: test ${quote(test.name)} of suite ${quote(ctx.suite.name)} (${test.kind}), ${what}`, ...headerLines(ctx, jobNodes)];
  lines.push("set -uo pipefail", "");
  // a secret's value (lib/core/redact.ts) is not written into the script, a file that sbatch copies
  // and gpucheck keeps: it comes in sbatch's own environment (run.ts submit, --export=ALL)
  const secret = new Set(launch.secret ?? []);
  const env = Object.entries(launch.env).filter(([k]) => !secret.has(k));
  if (env.length) lines.push("# the test's environment, as the suite gives it", ...env.map(([k, v]) => `export ${envName(k)}=${quote(v)}`), "");
  if (secret.size)
    lines.push(
      "# the test's secrets, given to sbatch in its environment (--export=ALL) rather than written here",
      ...[...secret].map(
        (k) => `[ -n "\${${envName(k)}+x}" ] || { echo "gpucheck: ${k} did not reach the job: sbatch was given it in its environment (--export=ALL)" >&2; exit 1; }`,
      ),
      "",
    );
  lines.push(
    "# srun sets SLURM_PROCID and SLURM_LOCALID per task; each rank exports them under the names the workload reads",
    // a round's groups may differ in size: each step says its own WORLD_SIZE
    groups ? `export LOCAL_WORLD_SIZE=${R}` : `export WORLD_SIZE=${test.worldSize} LOCAL_WORLD_SIZE=${R}`,
    ...(test.perNode
      ? []
      : [
          `rank_env='export ${sbcast ? "PYTHONPATH=$GPUCHECK_STAGE/$SLURMD_NODENAME " : ""}RANK=$SLURM_PROCID LOCAL_RANK=$SLURM_LOCALID GPUCHECK_NODE=$SLURMD_NODENAME; exec "$@"'`,
        ]),
    "",
    ...cpuShareLines(ctx),
    ...stagingLines(ctx),
    "",
  );
  const cmd = rankCommand(ctx);
  if (test.perNode) {
    lines.push(
      // one step, not one per node: at 1,000 nodes, 1,000 concurrent sruns are 1,000 step RPCs to
      // slurmctld and 1,000 srun processes on the batch node; one step is one launch fanned out by
      // the slurmd's. Each node's ranks still rendezvous among themselves only (a port per node id)
      "# one step over the whole allocation, one task per rank; each node's ranks are a world of their own;",
      "# each rank writes its log and prints its exit status the moment it ends, so a node that hangs",
      "# keeps no other node's verdict waiting",
      `node_env='${nodeEnv(R, sbcast)}'`,
      `srun --nodes="$SLURM_JOB_NUM_NODES" --ntasks=$(( SLURM_JOB_NUM_NODES * ${R} )) --ntasks-per-node=${R} ${rankCommand(ctx, "node_env")}`,
      "rc=$?",
    );
  } else if (groups) {
    lines.push(
      "# one step per group, all at once, each on its own nodes with its own rendezvous; each step's exit status is printed as it ends",
      STEP_FUNCTION,
      // Slurm sorts a step's nodes as the job's (slurm.conf order) whatever --nodelist's order, and
      // rank 0 runs on the first of them: that node is the rendezvous point
      `job_nodes=$(scontrol show hostnames "$SLURM_JOB_NODELIST")`,
      `first_node() { local n; for n in $job_nodes; do [[ ",$1," == *",$n,"* ]] && { echo "$n"; return; }; done; }`,
      "pids=()",
      ...groups.flatMap((u, k) => {
        const nodelist = word(u.nodes.join(","));
        const step = {
          unit: quote(u.name),
          nodes: u.nodes.length,
          nodelist,
          output: quote(`./${u.name}/rank-%t.log`),
          master: `$(first_node ${nodelist})`,
          index: String(k),
          ranksPerNode: R,
          cmd,
        };
        return [...stepLines({ ...step, world: u.ranks.length }), "pids+=($!)"];
      }),
      ...WAIT_STEPS,
    );
  } else {
    lines.push(
      "# one task per rank; rank 0 runs on the first node and is the rendezvous point",
      "mkdir -p all",
      `export MASTER_ADDR=$(scontrol show hostnames "$SLURM_JOB_NODELIST" | head -n 1)`,
      `export MASTER_PORT=${rendezvousPort("SLURM_JOB_ID * 131")}`,
      // explicit counts: a --nodelist longer than --nodes gives the job extra nodes, not extra ranks
      `srun --nodes=${test.nodes} --ntasks=${test.worldSize} --ntasks-per-node=${R} --output=./all/rank-%t.log ${cmd}`,
      "rc=$?",
      `echo "${STEP_MARK} unit=all exit=$rc"`,
    );
  }
  if (sbcast) {
    lines.push(`srun --nodes="$SLURM_JOB_NUM_NODES" --ntasks="$SLURM_JOB_NUM_NODES" --ntasks-per-node=1 rm -rf "$GPUCHECK_STAGE" "$GPUCHECK_STAGE.tar.gz"`);
  }
  lines.push(`echo ${END_MARK}`, "exit $rc", "");
  return lines.join("\n");
}

/**
 * A rendezvous port from the job's id (and a node's or group's index): the same on every node of the
 * job without asking any, different for jobs side by side. Kept in 10000–32767, below Linux's
 * ephemeral range (32768–60999 by default), where the kernel hands out the local ports of outgoing
 * connections: on a busy node one of those could hold the port a rank 0 must listen on.
 */
function rendezvousPort(of: string): string {
  return `$(( 10000 + (${of}) % 22768 ))`;
}

/**
 * What each task of a sweep's step runs first: its node's rendezvous (MASTER_PORT from the node's
 * id in the job, so nodes sharing an address never share a port), its log, and a mark with its
 * exit status (outcome.ts reads one per rank). A subshell runs the workload so that a missing
 * interpreter reads as it does with `exec` ("exec: python3: not found").
 */
function nodeEnv(ranksPerNode: number, sbcast: boolean): string {
  const vars = [
    ...(sbcast ? ["PYTHONPATH=$GPUCHECK_STAGE/$n"] : []),
    "RANK=$SLURM_LOCALID LOCAL_RANK=$SLURM_LOCALID GPUCHECK_NODE=$n",
    `WORLD_SIZE=${ranksPerNode} MASTER_ADDR=$n MASTER_PORT=${rendezvousPort("SLURM_JOB_ID * 131 + SLURM_NODEID")}`,
  ];
  return [
    'n=$SLURMD_NODENAME; mkdir -p "./$n"',
    `export ${vars.join(" ")}`,
    '( exec "$@" ) >"./$n/rank-$SLURM_LOCALID.log" 2>&1; rc=$?',
    `echo "${STEP_MARK} unit=$n rank=$SLURM_LOCALID exit=$rc"; exit $rc`,
  ].join("; ");
}

/**
 * A unit's step in the background: its name, then srun's arguments. Its mark is printed the moment
 * it ends, not when the script gets to wait for it, so a unit that finished beside one that hangs
 * keeps its verdict when the job is cancelled at the timeout.
 */
const STEP_FUNCTION = `step() { srun "\${@:2}"; local rc=$?; echo "${STEP_MARK} unit=$1 exit=$rc"; return $rc; }`;

const WAIT_STEPS = ["rc=0", `for p in "\${pids[@]}"; do wait "$p" || rc=1; done`];

/** One unit's step, its values as shell words: with its own rendezvous (a port per index within the job) and rank logs. */
function stepLines(s: {
  unit: string;
  nodes: number;
  nodelist: string;
  output: string;
  master: string;
  index: string;
  ranksPerNode: number;
  world?: number;
  cmd: string;
}): string[] {
  return [
    `mkdir -p ${s.unit}`,
    `MASTER_ADDR=${s.master} MASTER_PORT=${rendezvousPort(`SLURM_JOB_ID * 131 + ${s.index}`)}${s.world === undefined ? "" : ` WORLD_SIZE=${s.world}`} \\`,
    `  step ${s.unit} --nodes=${s.nodes} --ntasks=${s.nodes * s.ranksPerNode} --ntasks-per-node=${s.ranksPerNode} --nodelist=${s.nodelist} --output=${s.output} ${s.cmd} &`,
  ];
}

/** Without cpusPerTask: the batch node's CPUs (all of them in an exclusive job) over its ranks, at least 1. */
function cpuShareLines(ctx: RenderContext<SlurmSettings>): string[] {
  if (ctx.settings.cpusPerTask !== undefined) return [];
  const r = ctx.test.ranksPerNode;
  return [
    "# each rank's CPUs (srun --cpus-per-task): the CPUs this job holds on the batch node over its ranks",
    `export GPUCHECK_CPUS_PER_TASK=$(( \${SLURM_CPUS_ON_NODE:-${r}} / ${r} > 0 ? \${SLURM_CPUS_ON_NODE:-${r}} / ${r} : 1 ))`,
    "",
  ];
}

function envName(k: string): string {
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(k)) throw new SuiteError(`gpucheck: slurm: env name ${JSON.stringify(k)} is not a shell variable name`);
  return k;
}
