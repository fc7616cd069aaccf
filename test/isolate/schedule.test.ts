// lib/isolate/schedule.ts: the circle method (every unordered pair once, no node twice in a round),
// random matchings, and the exact refusals of a node list no schedule can be made from.
import { describe, expect, test } from "bun:test";
import { SuiteError } from "../../lib/core/errors.ts";
import { halves, pairwiseRounds, randomMatchings } from "../../lib/isolate/mod.ts";
import { nodeNames } from "./sim.ts";

function checkRounds(nodes: string[], rounds: string[][][]) {
  const known = new Set(nodes);
  const met = new Map<string, number>();
  for (const round of rounds) {
    const seen = new Set<string>();
    for (const pair of round) {
      expect(pair).toHaveLength(2);
      for (const n of pair) {
        expect(known.has(n)).toBe(true);
        expect(seen.has(n)).toBe(false);
        seen.add(n);
      }
      const key = [...pair].sort().join("+");
      met.set(key, (met.get(key) ?? 0) + 1);
    }
  }
  return met;
}

describe("pairwiseRounds (circle method)", () => {
  for (const n of [2, 3, 4, 5, 6, 7, 8, 9, 16, 17, 64]) {
    test(`${n} nodes: ${n % 2 ? n : n - 1} rounds, every unordered pair exactly once, no node twice in a round`, () => {
      const nodes = nodeNames(n);
      const rounds = pairwiseRounds(nodes);
      expect(rounds).toHaveLength(n % 2 ? n : n - 1);
      for (const r of rounds) expect(r).toHaveLength(Math.floor(n / 2));
      const met = checkRounds(
        nodes,
        rounds.map((r) => r.map((g) => g.nodes)),
      );
      expect(met.size).toBe((n * (n - 1)) / 2);
      expect([...met.values()].every((c) => c === 1)).toBe(true);
      // each pair is named by its nodes joined with "+"
      for (const g of rounds.flat()) expect(g.name).toBe(g.nodes.join("+"));
      // odd N: each node sits out exactly one round
      if (n % 2) for (const x of nodes) expect(rounds.filter((r) => !r.some((g) => g.nodes.includes(x)))).toHaveLength(1);
    });
  }

  test("2 nodes: one round of the one pair", () => {
    expect(pairwiseRounds(["a", "b"])).toEqual([[{ name: "a+b", nodes: ["a", "b"] }]]);
  });

  test("fewer than 2 nodes, a node twice, an empty name or a '+' in a name: refused with the value named", () => {
    const refused = (nodes: string[]) => {
      try {
        pairwiseRounds(nodes);
      } catch (e) {
        expect(e).toBeInstanceOf(SuiteError);
        return (e as Error).message;
      }
      throw new Error("not refused");
    };
    expect(refused(["gpu01"])).toBe("pairwise needs at least 2 nodes, got 1 (gpu01)");
    expect(refused([])).toBe("pairwise needs at least 2 nodes, got 0");
    expect(refused(["gpu01", "gpu02", "gpu01"])).toBe('pairwise: node "gpu01" is listed twice');
    expect(refused(["gpu01", ""])).toBe("pairwise: node 2 has an empty name");
    expect(refused(["gpu01", "a+b"])).toBe('pairwise: node "a+b" has a "+" in its name, which joins the names of a pair');
  });
});

describe("randomMatchings", () => {
  test("k rounds of perfect matchings, the same for the same seed and another for another seed", () => {
    const nodes = nodeNames(10);
    const a = randomMatchings(nodes, 4, 7);
    expect(a).toHaveLength(4);
    for (const r of a) expect(r).toHaveLength(5);
    checkRounds(
      nodes,
      a.map((r) => r.map((g) => g.nodes)),
    );
    expect(randomMatchings(nodes, 4, 7)).toEqual(a);
    expect(randomMatchings(nodes, 4, 8)).not.toEqual(a);
  });

  test("odd N: one node sits out each round", () => {
    for (const r of randomMatchings(nodeNames(7), 5, 1)) expect(new Set(r.flatMap((g) => g.nodes)).size).toBe(6);
  });

  test("k that is not a whole number of rounds is refused", () => {
    expect(() => randomMatchings(["a", "b"], 0, 1)).toThrow("pairs must be a whole number of rounds, 1 or more: got 0");
    expect(() => randomMatchings(["a", "b"], 2.5, 1)).toThrow("pairs must be a whole number of rounds, 1 or more: got 2.5");
  });
});

test("halves: the first half takes the odd node", () => {
  expect(halves(["a", "b", "c"])).toEqual([["a", "b"], ["c"]]);
  expect(halves(["a", "b", "c", "d"])).toEqual([
    ["a", "b"],
    ["c", "d"],
  ]);
  expect(halves(["a"])).toEqual([["a"], []]);
});
