// How one launched group counts against its nodes, and the ledger of every group an isolation ran.
import { formatNumber, withUnit } from "../core/quantity.ts";
import type { GroupResult, Judgement, JudgedGroup, PairEvidence, Round } from "./strategy.ts";

export interface Rules {
  outlierBelow: number;
  latencyAbove: number;
  floor?: number;
}

/**
 * NVIDIA ClusterKit's pair rule, as issue 16 cites it, when the test sets no floor: a pair is bad
 * when its bandwidth is below 93 % of the reference pair, or its latency above 2.1 × it. ClusterKit's
 * reference is the best pair; ours is the upper quartile of the comparable groups (see `reference`),
 * with ClusterKit's margins.
 */
export const CLUSTERKIT = { outlierBelow: 0.93, latencyAbove: 2.1 } as const;

/**
 * Groups are compared with groups of about their own node count: NCCL's busbw is normalised for the
 * rank count (nccl-tests doc/PERFORMANCE.md) but latency grows with it, so a pair is not held against
 * a group of 16. Within a quarter of each other's size is our choice: it lets the ⌈N/g⌉ and ⌊N/g⌋
 * groups of one screen round and the padded halves of one bisection level be compared.
 */
export const COMPARABLE_SIZE = 1.25;

export const comparable = (a: number, b: number) => Math.max(a, b) / Math.min(a, b) <= COMPARABLE_SIZE;

/**
 * A node's evidence lists its partners in groups up to this size; a larger group (a screen group, a
 * half of 1,000 nodes) would repeat its node list once per node: its nodes are in the verdict's
 * `groups`, under the same name.
 */
export const PARTNERS_LISTED = 16;

const what = (r: GroupResult) => (r.higher ? "the upper quartile of" : "the lower quartile of");

interface Verdict {
  judged: Judgement;
  reference: number | null;
  ratio: number | null;
  why: string;
}

const UPPER = 0.75;

/** The q-quantile by linear interpolation between the sorted values (q = 0.5: the median). */
export function quantile(values: readonly number[], q: number): number {
  const v = [...values].sort((a, b) => a - b);
  const at = (v.length - 1) * q;
  const lo = Math.floor(at);
  return lo + 1 < v.length ? v[lo]! + (v[lo + 1]! - v[lo]!) * (at - lo) : v[lo]!;
}

export class Ledger {
  readonly groups: JudgedGroup[] = [];
  rounds = 0;
  /** passed groups' values, by node count: what the relative rule holds a value against */
  private readonly pool = new Map<number, { values: number[]; higher: boolean }>();

  constructor(readonly rules: Rules) {}

  /** Records a round's results (checked against the round) and judges them against the pool as it now stands. */
  add(round: Round, results: GroupResult[]): JudgedGroup[] {
    const byName = new Map<string, GroupResult>();
    const wanted = new Set(round.groups.map((g) => g.name));
    for (const r of results) {
      if (!wanted.has(r.group.name)) throw new Error(`feed: round "${round.label}" has no group "${r.group.name}"`);
      if (byName.has(r.group.name)) throw new Error(`feed: two results for group "${r.group.name}" of round "${round.label}"`);
      byName.set(r.group.name, r);
    }
    const missing = round.groups.filter((g) => !byName.has(g.name)).map((g) => `"${g.name}"`);
    if (missing.length) throw new Error(`feed: no result for group ${missing.join(", ")} of round "${round.label}"`);
    this.rounds++;
    const added = round.groups.map((g) => {
      const r = byName.get(g.name)!;
      // the planned node list is the truth: a result names its group, the plan says who was in it
      const entry: JudgedGroup = { ...r, group: g, phase: round.phase, round: this.rounds, judged: "unjudged", reference: null, ratio: null, why: "" };
      if (r.status === "passed" && r.value !== null && Number.isFinite(r.value)) this.addToPool(g.nodes.length, r.value, r.higher);
      return entry;
    });
    this.groups.push(...added);
    this.rejudge(added);
    return added;
  }

  /** Judges the entries again against the pool as it now stands (the pairwise pass is judged once it is complete). */
  rejudge(entries: JudgedGroup[]): void {
    for (const e of entries) Object.assign(e, this.judge(e));
  }

  private addToPool(size: number, value: number, higher: boolean): void {
    const p = this.pool.get(size);
    if (!p) this.pool.set(size, { values: [value], higher });
    else p.values.push(value);
    this.references.clear();
  }

  /** references by node count and direction, until the pool grows (a pass of 1,000 pairs asks 1,000 times) */
  private readonly references = new Map<string, number | null>();

  /**
   * The upper quartile of the comparable groups' values (the lower quartile for latency), or null
   * when the group is alone of its size. ClusterKit holds each pair against the best pair, and one
   * lucky pair (issue 26: a pair that ran beside a throttled host had the cores to itself and read
   * 1.21 GB/s against 0.38–0.95 for the rest) then condemns healthy nodes. A quartile moves only
   * when a quarter of the groups move. Not the median: one slow node among 4 is in half the pairs of
   * the first pass and in every pair of the second, which pulls the median down to its own level.
   * The price: with more bad nodes than good the quartile is theirs too (docs/thresholds.md).
   */
  private reference(size: number, higher: boolean): number | null {
    const key = `${size} ${higher}`;
    if (!this.references.has(key)) this.references.set(key, this.computeReference(size, higher));
    return this.references.get(key)!;
  }

  private computeReference(size: number, higher: boolean): number | null {
    const values: number[] = [];
    for (const [s, p] of this.pool) if (comparable(s, size) && p.higher === higher) values.push(...p.values);
    return values.length > 1 ? quantile(values, higher ? UPPER : 1 - UPPER) : null;
  }

  judge(r: GroupResult): Verdict {
    const u = (x: number) => withUnit(x, r.unit ?? "");
    const said = r.message ? `: ${r.message}` : "";
    // a failed or hung launch is evidence against its nodes (issue 16, item 4); an infrastructure error is not
    if (r.status === "failed") return { judged: "bad", reference: null, ratio: null, why: `failed${said}` };
    if (r.status === "timeout") return { judged: "bad", reference: null, ratio: null, why: `timed out${said}` };
    if (r.status === "error") return { judged: "unjudged", reference: null, ratio: null, why: `not evidence: the launch failed${said}` };
    if (r.value === null || !Number.isFinite(r.value)) return { judged: "unjudged", reference: null, ratio: null, why: `not evidence: passed without a value${said}` };
    const v = r.value;
    const { floor } = this.rules;
    if (floor !== undefined) {
      const ratio = floor === 0 ? null : v / floor;
      const beyond = r.higher ? v < floor : v > floor;
      const cmp = r.higher ? (beyond ? "below" : "at or above") : beyond ? "above" : "at or below";
      return { judged: beyond ? "bad" : "good", reference: floor, ratio, why: `${u(v)} ${cmp} the floor ${u(floor)}` };
    }
    const ref = this.reference(r.group.nodes.length, r.higher);
    if (ref === null) return { judged: "good", reference: null, ratio: null, why: `passed; no comparable group to hold ${u(v)} against` };
    if (ref === 0) return { judged: "unjudged", reference: 0, ratio: null, why: `not evidence: ${what(r)} the comparable groups is 0, no ratio to judge ${u(v)} by` };
    const ratio = v / ref;
    const limit = r.higher ? this.rules.outlierBelow : this.rules.latencyAbove;
    const beyond = r.higher ? ratio < limit : ratio > limit;
    const cmp = r.higher ? (beyond ? "below" : "not below") : beyond ? "above" : "not above";
    return { judged: beyond ? "bad" : "good", reference: ref, ratio, why: `${u(v)} = ${formatNumber(ratio)} × ${what(r)} the comparable groups, ${cmp} ${limit}` };
  }

  /** Every group a node was in, as evidence (of `groups` when the caller has them by node already). */
  evidence(node: string, groups?: readonly JudgedGroup[]): PairEvidence[] {
    return (groups ?? this.groups.filter((g) => g.group.nodes.includes(node))).map((g) => ({
      group: g.group.name,
      partners: g.group.nodes.length <= PARTNERS_LISTED ? g.group.nodes.filter((n) => n !== node) : [],
      status: g.status,
      value: g.value,
      reference: g.reference,
      ratio: g.ratio,
      phase: g.phase,
    }));
  }
}
