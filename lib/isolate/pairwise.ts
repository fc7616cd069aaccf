// pattern: pairwise. Every node meets every other (or k random matchings), the pairs are judged,
// the nodes blamed from their pairs, and each suspect re-tested against healthy partners.
import { Engine, type Settings } from "./engine.ts";
import type { Findings } from "./findings.ts";
import { blame } from "./pairs.ts";
import { pairwiseRounds, randomMatchings } from "./schedule.ts";
import type { JudgedGroup } from "./strategy.ts";
import { describeRule } from "./rule.ts";

export class Pairwise extends Engine {
  private firstPassDone = false;
  private readonly note: string;

  constructor(nodes: string[], settings: Settings, pairs: number | undefined, seed: number) {
    super("pairwise", nodes, settings, "second-pass");
    const all = nodes.length % 2 ? nodes.length : nodes.length - 1;
    // k matchings that would cost as many rounds as meeting everyone: meet everyone, each pair once
    const rounds = pairs !== undefined && pairs < all ? randomMatchings(nodes, pairs, seed) : pairwiseRounds(nodes);
    this.note =
      pairs === undefined
        ? `every pair once in ${all} rounds (the circle method)`
        : pairs < all
          ? `${pairs} rounds of random perfect matchings (seed ${seed})`
          : `pairs: ${pairs} asks for as many rounds as every pair once takes (${all}): every pair once (the circle method)`;
    this.planPairs(rounds);
  }

  protected advance(stalled: boolean): boolean {
    if (stalled) {
      this.abandonWaiting();
      return true;
    }
    if (this.firstPassDone) return this.leftovers();
    this.firstPassDone = true;
    const first = this.pairwiseGroups();
    // judged once the pass is complete, so every pair is held against the best pair of the whole pass
    this.ledger.rejudge(first);
    const b = blame(first);
    for (const n of b.healthy) this.vouch([n]);
    for (const n of b.suspects) this.second.suspect(n, suspectWhy(n, first));
    for (const g of b.pairs) this.second.retestPair(g);
    return true;
  }

  /**
   * A bad pair set aside because a suspect was in it, and the suspect then cleared: nothing explains
   * it any more, so it is re-tested like any other.
   */
  private leftovers(): boolean {
    let queued = false;
    for (const g of this.pairwiseGroups()) if (g.judged === "bad" && !this.findings.settled(g) && this.second.retestPair(g)) queued = true;
    return queued;
  }

  protected provisional(f: Findings): void {
    if (this.firstPassDone) return;
    const first = this.pairwiseGroups().map((g) => ({ ...g, ...this.ledger.judge(g) }));
    for (const n of blame(first).suspects) f.unconfirmed.set(n, `${suspectWhy(n, first)}; the isolation stopped before the second pass`);
  }

  protected rule(): string {
    return `pairwise: ${this.note}. ${describeRule(this.settings)} A node is suspect when most of its pairs are bad after the pairs of nodes found suspect before it are set aside; it is bad only when a second pass confirms it: most of its pairs with ${this.settings.confirmPartners} healthy partners bad (Google cluster-health-scanner's second pass). A pair that fails while both nodes pass with others is re-tested and, failing again, reported as a bad pair with neither node bad.`;
  }
}

/** "7 of 7 pairs bad (5 failed, 2 beyond the limit: median 0.41 × the reference)" */
export function suspectWhy(node: string, groups: readonly JudgedGroup[]): string {
  const mine = groups.filter((g) => g.judged !== "unjudged" && g.group.nodes.includes(node));
  const bad = mine.filter((g) => g.judged === "bad");
  const failed = bad.filter((g) => g.status === "failed").length;
  const hung = bad.filter((g) => g.status === "timeout").length;
  const ratios = bad.flatMap((g) => (g.status === "passed" && g.ratio !== null ? [g.ratio] : [])).sort((a, b) => a - b);
  const parts = [
    failed && `${failed} failed`,
    hung && `${hung} timed out`,
    ratios.length && `${ratios.length} beyond the limit: median ${ratios[Math.floor(ratios.length / 2)]!.toFixed(2)} × the reference`,
  ].filter(Boolean);
  return `${bad.length} of ${mine.length} pairs bad (${parts.join(", ")})`;
}
