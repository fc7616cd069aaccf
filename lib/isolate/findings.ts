// What an isolation has concluded so far, and each node's verdict drawn from it and the ledger.
import type { Ledger } from "./judge.ts";
import type { JudgedGroup, NodeVerdict } from "./strategy.ts";

export class Findings {
  /** confirmed by a second pass */
  readonly bad = new Map<string, string>();
  /** suspect, but the second pass did not confirm it (or could not run) */
  readonly unconfirmed = new Map<string, string>();
  /** suspect, then passed every confirm pair */
  readonly cleared = new Map<string, string>();
  /** "a+b" → why: fails together, each passes with others */
  readonly badPairs = new Map<string, string>();
  readonly untested = new Map<string, string>();
  readonly unresolved: string[] = [];

  /** What explains a failing group: the bad nodes in it and the bad pairs whose two nodes are both in it. */
  culprits(g: JudgedGroup): string[] {
    const has = new Set(g.group.nodes);
    const pairs = [...this.badPairs.keys()].filter((p) => p.split("+").every((n) => has.has(n)));
    return [...g.group.nodes.filter((n) => this.bad.has(n)), ...pairs];
  }

  explains(g: JudgedGroup): boolean {
    return this.culprits(g).length > 0;
  }

  /** Nothing is left to learn about the group: explained, or holding a node whose own verdict is open. */
  settled(g: JudgedGroup): boolean {
    return this.explains(g) || g.group.nodes.some((n) => this.unconfirmed.has(n) || this.untested.has(n));
  }
}

const sameNodes = (a: JudgedGroup, b: JudgedGroup) => a.group.nodes.length === b.group.nodes.length && a.group.nodes.every((n) => b.group.nodes.includes(n));

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;

export function nodeVerdicts(nodes: readonly string[], ledger: Ledger, f: Findings, complete: boolean): NodeVerdict[] {
  const byNode = new Map<string, JudgedGroup[]>(nodes.map((n) => [n, []]));
  for (const g of ledger.groups) for (const n of g.group.nodes) byNode.get(n)?.push(g);
  // what else in a failing group could have failed it: its bad nodes and pairs, and nodes whose own
  // verdict is open (untested, unconfirmed). Asked once per group: a group of 2,000 is in 2,000 lists.
  const memo = new Map<JudgedGroup, string[]>();
  const open = (n: string) => (f.untested.has(n) ? `${n} (untested)` : f.unconfirmed.has(n) ? `${n} (unconfirmed)` : undefined);
  const blamed = (g: JudgedGroup) =>
    memo.get(g) ??
    memo
      .set(g, [
        ...f.culprits(g),
        ...g.group.nodes.flatMap((n) => {
          const o = open(n);
          return o ? [o] : [];
        }),
      ])
      .get(g)!;
  return nodes.map((node) => {
    const mine = byNode.get(node)!;
    const evidence = ledger.evidence(node, mine);
    const said = (verdict: NodeVerdict["verdict"], reason: string): NodeVerdict => ({ node, verdict, reason, evidence });
    if (f.bad.has(node)) return said("bad", f.bad.get(node)!);
    if (f.unconfirmed.has(node)) return said("suspect-unconfirmed", f.unconfirmed.get(node)!);
    if (f.cleared.has(node)) return said("good", f.cleared.get(node)!);
    if (f.untested.has(node)) return said("untested", f.untested.get(node)!);
    const judged = mine.filter((g) => g.judged !== "unjudged");
    if (!judged.length) {
      if (mine.length) return said("untested", `every group it ran in ended without evidence (${mine.map((g) => g.why).join("; ")})`);
      return said("untested", complete ? "never launched" : "not launched before the isolation stopped");
    }
    const good = judged.filter((g) => g.judged === "good").length;
    const bad = judged.filter((g) => g.judged === "bad");
    // a failure its own re-test (the same nodes, later) did not reproduce is not the node's either
    const passedLater = (g: JudgedGroup) => judged.some((x) => x.judged === "good" && x.round > g.round && sameNodes(x, g));
    const unexplained = bad.filter((g) => !blamed(g).length && !passedLater(g));
    const others = [...new Set(bad.flatMap(blamed))];
    const retested = bad.filter((g) => !blamed(g).length && passedLater(g)).map((g) => g.group.name);
    const because = [others.length ? `; its failing groups held ${others.join(", ")}` : "", retested.length ? `; ${retested.join(", ")} passed when re-tested` : ""].join("");
    if (!unexplained.length) {
      if (good) return said("good", `passed ${good} of ${plural(judged.length, "group")}${because}`);
      return said("untested", `every group it ran in also held ${others.join(", ")}: no evidence of its own`);
    }
    // a failure the rest of its groups outvote is noise or a pair fault already reported, not the node
    if (good > bad.length) return said("good", `passed ${good} of ${plural(judged.length, "group")}; ${unexplained.map((g) => `${g.group.name} ${g.why}`).join("; ")}`);
    const stop = complete ? "" : "; the isolation stopped before a second pass";
    return said("suspect-unconfirmed", `${bad.length} of ${plural(judged.length, "group")} bad, not confirmed by a second pass${stop}`);
  });
}
