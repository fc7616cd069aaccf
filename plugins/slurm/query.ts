// Parsers for what the scheduler commands print. Pure and fixture-tested against output
// captured from a real Slurm 22.05 (test/fixtures/slurm/). Each command has its own trap:
// - squeue -o: user text (job names, comments) is never requested, so "|" cannot appear in a field;
// - scontrol show job: the one-line form (-o) puts the job name, which may hold spaces and
//   "Key=Value" look-alikes, among the fields; the multi-line form keeps it on the first line;
// - sacct -c (jobcomp file) misreads names with spaces and leaves State empty: empty is "unknown".
import { ParseError } from "../../lib/core/errors.ts";

export interface JobInfo {
  id: string;
  /** Slurm's name: PENDING, RUNNING, COMPLETED, CANCELLED by 0 …; "" when the source did not say */
  state: string;
  /** pending reason (squeue %r, scontrol Reason); "" when unknown */
  reason: string;
  /** allocated nodes as a hostlist; "" while pending */
  nodes: string;
  /** "exit:signal" of the batch script when the source reports it */
  exitCode?: string;
}

/** `squeue -h -t all -j IDS -o '%i|%T|%r|%N'` */
export const SQUEUE_FORMAT = "%i|%T|%r|%N";

export function parseSqueue(text: string): JobInfo[] {
  return lines(text).map((l, i) => {
    const f = l.split("|");
    if (f.length !== 4 || !/^\d+/.test(f[0]!)) throw new ParseError(`squeue: expected "jobid|state|reason|nodes", got ${JSON.stringify(l)}`, i + 1);
    return { id: f[0]!, state: f[1]!, reason: f[2] === "None" ? "" : f[2]!, nodes: f[3]! };
  });
}

/** `scontrol show job ID` (multi-line form). */
export function parseScontrolJob(text: string): JobInfo | undefined {
  const all = text.split("\n");
  const id = /^JobId=(\d+)/.exec(all[0] ?? "")?.[1];
  if (!id) return undefined;
  const rest = all.slice(1);
  const field = (re: RegExp) => rest.map((l) => re.exec(l)?.[1]).find((v) => v !== undefined);
  const reason = field(/^\s+JobState=\S+ Reason=(.*?) Dependency=/) ?? "";
  return {
    id,
    state: field(/^\s+JobState=(\S+)/) ?? "",
    reason: reason === "None" ? "" : reason,
    nodes: (field(/^\s+NodeList=(\S+)/) ?? "").replace(/^\(null\)$/, ""),
    exitCode: field(/\sExitCode=(\d+:\d+)/),
  };
}

/** `sacct [-c] -n -P -X -j IDS -o JobIDRaw,State,ExitCode,NodeList` */
export const SACCT_FIELDS = "JobIDRaw,State,ExitCode,NodeList";

export function parseSacct(text: string): JobInfo[] {
  return lines(text).map((l, i) => {
    const f = l.split("|");
    if (f.length !== 4 || !/^\d+/.test(f[0]!)) throw new ParseError(`sacct: expected "jobid|state|exitcode|nodes", got ${JSON.stringify(l)}`, i + 1);
    return { id: f[0]!, state: f[1]!, reason: "", nodes: f[3] === "None assigned" ? "" : f[3]!, exitCode: f[2] || undefined };
  });
}

export interface NodeState {
  node: string;
  partition: string;
  /** the partition is the cluster's default one (sinfo marks it with *) */
  isDefault: boolean;
  /** sinfo %T: idle, mixed, drained, down*, idle~ … */
  state: string;
  /** sinfo %E: why an admin drained it, or "none" */
  reason: string;
}

/** `sinfo -h -N -o '%N|%P|%T|%E'`; the reason goes last because an admin may type "|" in it. */
export const SINFO_FORMAT = "%N|%P|%T|%E";

export function parseSinfo(text: string): NodeState[] {
  return lines(text).map((l, i) => {
    const f = l.split("|");
    if (f.length < 4) throw new ParseError(`sinfo: expected "node|partition|state|reason", got ${JSON.stringify(l)}`, i + 1);
    const part = f[1]!;
    return { node: f[0]!, partition: part.replace(/\*$/, ""), isDefault: part.endsWith("*"), state: f[2]!, reason: f.slice(3).join("|") };
  });
}

function lines(text: string): string[] {
  return text
    .split("\n")
    .map((l) => l.trimEnd())
    .filter(Boolean);
}
