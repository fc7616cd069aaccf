// Judging nodes from the pairs they ran in (issue 16, item 2): a node is suspect when most of its
// pairs are bad while its partners pass with other nodes. Partners of a bad node fail with it too,
// so the blame is peeled: the nodes whose share of bad pairs is highest are taken first, their pairs
// set aside as explained, and the shares counted again over the pairs left. One bad node therefore
// does not make its partners suspect, and a pair that fails alone (a↔b only) names neither node.
import type { JudgedGroup } from "./strategy.ts";

export interface Blame {
  /** most of their unexplained pairs are bad: to be confirmed by a second pass */
  suspects: string[];
  /** not suspect, at least one good pair, every bad pair shared with a suspect: partners for the second pass, most good pairs first */
  healthy: string[];
  /** bad pairs no suspect explains: a fault of the pair itself, or noise, to be re-tested */
  pairs: JudgedGroup[];
}

export function blame(groups: readonly JudgedGroup[]): Blame {
  const judged = groups.filter((g) => g.judged !== "unjudged");
  const suspects = new Set<string>();
  let open = judged;
  for (;;) {
    const tally = new Map<string, { bad: number; all: number }>();
    for (const g of open)
      for (const n of g.group.nodes) {
        const t = tally.get(n) ?? { bad: 0, all: 0 };
        t.all++;
        if (g.judged === "bad") t.bad++;
        tally.set(n, t);
      }
    // a strict majority (issue 16: "a node whose pairs fail"): one bad pair out of two is not enough
    const shares = [...tally].filter(([, t]) => t.bad * 2 > t.all).map(([n, t]) => [n, t.bad / t.all] as const);
    if (!shares.length) break;
    const top = Math.max(...shares.map(([, s]) => s));
    // nodes tied at the top are all taken: which of two partners is bad is for the second pass to say
    for (const [n, s] of shares) if (s === top) suspects.add(n);
    open = open.filter((g) => !g.group.nodes.some((n) => suspects.has(n)));
  }
  const good = new Map<string, number>();
  const unexplained = new Set<string>();
  for (const g of judged)
    for (const n of g.group.nodes) {
      if (g.judged === "good") good.set(n, (good.get(n) ?? 0) + 1);
      else if (!g.group.nodes.some((m) => suspects.has(m))) unexplained.add(n);
    }
  const healthy = [...good.keys()].filter((n) => !suspects.has(n) && !unexplained.has(n)).sort((a, b) => good.get(b)! - good.get(a)! || a.localeCompare(b));
  const pairs = judged.filter((g) => g.judged === "bad" && g.group.nodes.length === 2 && !g.group.nodes.some((n) => suspects.has(n)));
  return { suspects: [...suspects], healthy, pairs };
}
