// Per-node mode: which nodes a sweep covers, from one sinfo call. Nodes an admin drained or
// Slurm marked down are not submitted to (the job would wait for them forever); they become
// "skipped" units that carry the admin's reason.
import { expandHostlist } from "../../lib/core/hostlist.ts";
import type { NodeState } from "./query.ts";

export interface Sweep {
  usable: string[];
  skipped: Array<{ node: string; why: string }>;
  /** nodes the suite named that Slurm does not know in this partition */
  unknown: string[];
}

/** Base states a job can be scheduled on (possibly after a wait); sinfo adds flag suffixes. */
const SCHEDULABLE = new Set(["idle", "mixed", "allocated", "completing", "planned", "reserved"]);

/** Why a node cannot take a job, or undefined when it can. */
export function unusable(state: string, reason: string): string | undefined {
  const base = state.replace(/[*~#!%$@^-]+$/, "").toLowerCase();
  const why = reason && reason !== "none" ? `: ${reason}` : "";
  if (state.includes("*")) return `${state} (not responding)${why}`;
  if (state.includes("$")) return `${state} (in a maintenance reservation)${why}`;
  if (!SCHEDULABLE.has(base)) return `${state}${why}`;
  return undefined;
}

export function sweepNodes(rows: NodeState[], want: { partition?: string; nodelist?: string; exclude?: string }): Sweep {
  const inPartition = want.partition ? rows.filter((r) => r.partition === want.partition) : rows.some((r) => r.isDefault) ? rows.filter((r) => r.isDefault) : rows;
  const byNode = new Map<string, NodeState>();
  for (const r of inPartition) if (!byNode.has(r.node)) byNode.set(r.node, r);
  const named = want.nodelist ? expandHostlist(want.nodelist) : [...byNode.keys()];
  const excluded = new Set(want.exclude ? expandHostlist(want.exclude) : []);
  const sweep: Sweep = { usable: [], skipped: [], unknown: [] };
  for (const node of new Set(named)) {
    if (excluded.has(node)) continue;
    const row = byNode.get(node);
    if (!row) {
      sweep.unknown.push(node);
      continue;
    }
    const why = unusable(row.state, row.reason);
    if (why) sweep.skipped.push({ node, why });
    else sweep.usable.push(node);
  }
  return sweep;
}
