// `gpucheck health --drain` on Slurm: a failing node is set DRAIN with the first failure as its
// reason, as LBNL NHC does from Slurm's HealthCheckProgram. Slurm's state is read first
// (`scontrol show node`): a healthy node is never touched, and a node an operator (or another check)
// already drained or downed keeps its reason; only a reason gpucheck wrote ("gpucheck: …") is
// replaced by the new one. NHC keeps operators' notes the same way (mej/nhc README, "NHC:" marks its own).
import { execFile } from "node:child_process";

export type Exec = (argv: string[]) => Promise<{ code: number; stdout: string; stderr: string }>;

export const systemExec: Exec = (argv) =>
  new Promise((resolve) => {
    execFile(argv[0]!, argv.slice(1), { encoding: "utf8", timeout: 30_000 }, (e, stdout, stderr) => {
      const code = e ? (typeof (e as { code?: unknown }).code === "number" ? ((e as { code: number }).code as number) : 127) : 0;
      resolve({ code, stdout, stderr: stderr || (e && !stdout ? e.message : "") });
    });
  });

export const REASON_PREFIX = "gpucheck: ";
/** a reason is read in one line of `sinfo -R` and `scontrol show node`: a long one is cut, said with "…" */
const REASON_MAX = 250;

export interface SlurmNodeState {
  /** State=, e.g. IDLE, IDLE+DRAIN, MIXED+DRAIN, DOWN+NOT_RESPONDING */
  state: string;
  /** Reason= without Slurm's " [user@time]" suffix; undefined when none */
  reason?: string;
}

/** `scontrol show node <name>` → its State and Reason. */
export function parseScontrolNode(text: string): SlurmNodeState | undefined {
  const state = /(?:^|\s)State=(\S+)/.exec(text)?.[1];
  if (state === undefined) return undefined;
  const reason = /(?:^|\n)\s*Reason=(.*)$/m
    .exec(text)?.[1]
    ?.replace(/\s*\[[^\]]*@[^\]]*\]\s*$/, "")
    .trim();
  return { state, ...(reason && reason !== "(null)" && { reason }) };
}

export const isOut = (s: SlurmNodeState) => /\b(DRAIN|DRAINED|DRAINING|DOWN|FAIL|FAILING)\b/.test(s.state.replace(/\+/g, " "));

export type DrainOutcome =
  | { action: "drained"; node: string; reason: string }
  | { action: "kept"; node: string; state: string; reason: string }
  | { action: "healthy"; node: string };

export function drainReason(firstFailure: string): string {
  const r = `${REASON_PREFIX}${firstFailure.replace(/\s+/g, " ").trim()}`;
  return r.length > REASON_MAX ? `${r.slice(0, REASON_MAX - 1)}…` : r;
}

/**
 * Drains `node` when the health run failed. Throws with one line when Slurm cannot be read or
 * refuses the update: the node was then not drained, and the health run says so.
 */
export async function drainOnFailure(node: string, failures: string[], exec: Exec = systemExec): Promise<DrainOutcome> {
  if (!failures.length) return { action: "healthy", node };
  const shown = await exec(["scontrol", "show", "node", node]);
  const what = shown.code === 0 ? parseScontrolNode(shown.stdout) : undefined;
  if (!what) {
    const why = (shown.stderr || shown.stdout).trim().split("\n")[0] || `exit code ${shown.code}`;
    throw new Error(
      `--drain: could not read Slurm node "${node}" (scontrol show node ${node}: ${why}): it was not drained; check that this is a Slurm node (--node names it) and slurmctld answers`,
    );
  }
  if (isOut(what) && what.reason !== undefined && !what.reason.startsWith(REASON_PREFIX.trim())) return { action: "kept", node, state: what.state, reason: what.reason };
  const reason = drainReason(failures[0]!);
  const done = await exec(["scontrol", "update", `nodename=${node}`, "state=drain", `reason=${reason}`]);
  if (done.code !== 0) {
    const why = (done.stderr || done.stdout).trim().split("\n")[0] || `exit code ${done.code}`;
    throw new Error(`--drain: Slurm refused to drain "${node}" (scontrol update: ${why}): it was not drained; run gpucheck health as root or SlurmUser`);
  }
  return { action: "drained", node, reason };
}

export function drainLine(d: DrainOutcome): string {
  if (d.action === "drained") return `drained Slurm node ${d.node}: ${d.reason}`;
  if (d.action === "kept") return `Slurm node ${d.node} is already ${d.state} for another reason ("${d.reason}"): left as it is`;
  return `Slurm node ${d.node} is healthy: not drained`;
}
