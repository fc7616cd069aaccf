// A small seeded cluster simulator for the isolation planner's property tests and bench: each node
// is good, slow (its links run at a fraction of the rate), failing (its launches fail) or hanging
// (its launches time out); a bad pair fails only when both of its nodes are in a group. A group's
// result comes from its members: any hanging → timeout, any failing or a bad pair → failed, else the
// slowest member bounds the bandwidth (NCCL's ring runs at its slowest link), with mild noise.
import { seeded, shuffled } from "../../lib/isolate/random.ts";
import type { Group, GroupResult, Isolation, IsolationVerdict } from "../../lib/isolate/mod.ts";

export type Health = { kind: "good" } | { kind: "slow"; factor: number } | { kind: "failing" } | { kind: "hanging" };

export interface Cluster {
  nodes: string[];
  health: Map<string, Health>;
  badPairs: Array<[string, string]>;
  /** bandwidth of a healthy group (GB/s), or latency (µs) when !higher */
  base: number;
  higher: boolean;
  /** ± this fraction, uniform */
  noise: number;
  /** chance that a launch fails for infrastructure reasons (status error) */
  errorRate: number;
  random: () => number;
}

export interface Faults {
  slow?: number;
  failing?: number;
  hanging?: number;
  pairs?: number;
  higher?: boolean;
  noise?: number;
  errorRate?: number;
}

export const nodeNames = (n: number) => Array.from({ length: n }, (_, i) => `gpu${String(i + 1).padStart(n > 999 ? 4 : 3, "0")}`);

export function makeCluster(n: number, faults: Faults, seed: number): Cluster {
  const random = seeded(seed);
  const nodes = nodeNames(n);
  const order = shuffled(nodes, random);
  const health = new Map<string, Health>(nodes.map((x) => [x, { kind: "good" }]));
  let at = 0;
  const take = (count: number, h: () => Health) => {
    for (let i = 0; i < count; i++) health.set(order[at++]!, h());
  };
  // past ClusterKit's rule with the noise: bandwidth 0.3–0.85 of the healthy rate (the rule: < 0.93),
  // latency 2.5–6.7 × the healthy one (the rule: > 2.1)
  const [lo, span] = faults.higher === false ? [0.15, 0.25] : [0.3, 0.55];
  take(faults.slow ?? 0, () => ({ kind: "slow", factor: lo + random() * span }));
  take(faults.failing ?? 0, () => ({ kind: "failing" }));
  take(faults.hanging ?? 0, () => ({ kind: "hanging" }));
  const badPairs: Array<[string, string]> = [];
  for (let i = 0; i < (faults.pairs ?? 0); i++) badPairs.push([order[at++]!, order[at++]!]);
  return { nodes, health, badPairs, base: faults.higher === false ? 20 : 40, higher: faults.higher ?? true, noise: faults.noise ?? 0.01, errorRate: faults.errorRate ?? 0, random };
}

/** A cluster written out by hand: the named nodes' health, every other node good, no noise unless asked. */
export function clusterOf(n: number, health: Record<string, Health>, o: { pairs?: Array<[string, string]>; higher?: boolean; noise?: number; seed?: number } = {}): Cluster {
  const nodes = nodeNames(n);
  const h = new Map<string, Health>(nodes.map((x) => [x, health[x] ?? { kind: "good" }]));
  return {
    nodes,
    health: h,
    badPairs: o.pairs ?? [],
    base: o.higher === false ? 20 : 40,
    higher: o.higher ?? true,
    noise: o.noise ?? 0,
    errorRate: 0,
    random: seeded(o.seed ?? 1),
  };
}

export const badNodes = (c: Cluster) => c.nodes.filter((n) => c.health.get(n)!.kind !== "good");

export function runGroup(c: Cluster, group: Group): GroupResult {
  if (group.nodes.length < 2) throw new Error(`sim: group ${group.name} has ${group.nodes.length} node: a multi-node test needs 2`);
  const out = (status: GroupResult["status"], value: number | null): GroupResult => ({ group, status, value, unit: c.higher ? "GB/s" : "us", higher: c.higher });
  if (c.random() < c.errorRate) return out("error", null);
  const hs = group.nodes.map((n) => {
    const h = c.health.get(n);
    if (!h) throw new Error(`sim: unknown node ${n} in ${group.name}`);
    return h;
  });
  if (hs.some((h) => h.kind === "hanging")) return out("timeout", null);
  if (hs.some((h) => h.kind === "failing")) return out("failed", null);
  if (c.badPairs.some(([a, b]) => group.nodes.includes(a) && group.nodes.includes(b))) return out("failed", null);
  const factor = Math.min(...hs.map((h) => (h.kind === "slow" ? h.factor : 1)));
  const noise = 1 + (c.random() * 2 - 1) * c.noise;
  return out("passed", c.higher ? c.base * factor * noise : (c.base / factor) * noise);
}

/** Drives an isolation to its end against the cluster, checking every round on the way. */
export function drive(iso: Isolation, c: Cluster, maxRounds = 10_000): IsolationVerdict {
  for (let r = 0; r < maxRounds; r++) {
    const round = iso.next();
    if (!round) return iso.verdict();
    if (iso.next() !== round) throw new Error(`sim: next() twice gave two rounds before a feed`);
    const seen = new Set<string>();
    for (const g of round.groups)
      for (const n of g.nodes) {
        if (seen.has(n)) throw new Error(`sim: ${n} twice in round "${round.label}"`);
        seen.add(n);
      }
    iso.feed(round.groups.map((g) => runGroup(c, g)));
  }
  throw new Error(`sim: more than ${maxRounds} rounds`);
}
