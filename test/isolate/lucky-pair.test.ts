// Issue 26, item 8: pairwise over 4 real ssh hosts, one under a 10 % CPU quota, read 0.10–0.16 GB/s
// for every pair with the capped host and 0.38–0.95 for the others, the best pair 1.21 (it ran
// beside the capped host and had the cores to itself). Against that best pair ClusterKit's 0.93
// named a healthy node too; against the upper quartile only the capped host is named. And a data
// check (`wrong: { max: 0 }`) no longer turns the relative rule off.
import { describe, expect, test } from "bun:test";
import { headlineRule } from "../../lib/assess/isolation.ts";
import { isolation } from "../../lib/isolate/mod.ts";
import type { Expectation } from "../../lib/core/types.ts";

const HOSTS = ["h1", "h2", "h3", "h4"];
const CAPPED = "h4";

/** Feeds each round's pairs the next figure of their kind, in order, as the run read them. */
function run(capped: number[], others: number[]) {
  const iso = isolation("pairwise", HOSTS);
  const fed: string[] = [];
  for (let round = iso.next(); round; round = iso.next()) {
    iso.feed(
      round.groups.map((group) => {
        const list = group.nodes.includes(CAPPED) ? capped : others;
        const value = list.shift();
        if (value === undefined) throw new Error(`no figure left for ${group.name}`);
        fed.push(`${group.name} ${value}`);
        return { group, status: "passed" as const, value, unit: "GB/s", higher: true };
      }),
    );
  }
  return { verdict: iso.verdict(), fed };
}

describe("pairwise with one capped host, figures shaped as issue 26 measured them", () => {
  // the pass: capped pairs 0.10, 0.13, 0.16; the others 0.38, 1.21 (the lucky pair, in the round of a capped pair), 0.95;
  // then the second pass (the capped host with healthy partners) and any re-test of a healthy pair
  const capped = [0.1, 0.13, 0.16, 0.12, 0.14, 0.11];
  const others = [0.38, 1.21, 0.95, 0.85, 0.98, 0.9];

  test("names the capped host and no other", () => {
    const { verdict, fed } = run([...capped], [...others]);
    expect(verdict.bad).toEqual([CAPPED]);
    expect(verdict.badPairs).toEqual([]);
    expect(fed).toEqual(["h1+h2 0.38", "h3+h4 0.1", "h1+h3 1.21", "h4+h2 0.13", "h1+h4 0.16", "h2+h3 0.95", "h4+h3 0.12", "h1+h2 0.85"]);
    const h4 = verdict.nodes.find((n) => n.node === CAPPED)!;
    expect(h4.reason).toBe(
      "3 of 3 pairs bad (3 beyond the limit: median 0.16 × the reference); second pass confirmed: 1 of 1 pairs with healthy partners bad (h3) (1 of the 2 wanted: too few healthy nodes to pair it with)",
    );
    // the healthy pair's 0.38 is under 0.93 × the upper quartile (0.81) of a pass whose healthy pairs
    // spread 0.38–1.21; it passed its re-test (0.85), so it counts against neither of its hosts
    expect(Object.fromEntries(verdict.nodes.map((n) => [n.node, [n.verdict, n.reason]]))).toEqual({
      h1: ["good", "passed 2 of 4 groups; its failing groups held h4; h1+h2 passed when re-tested"],
      h2: ["good", "passed 2 of 4 groups; its failing groups held h4; h1+h2 passed when re-tested"],
      h3: ["good", "passed 2 of 4 groups; its failing groups held h4"],
      h4: ["bad", h4.reason],
    });
  });

  test("the rule says what the reference is", () => {
    expect(run([...capped], [...others]).verdict.rule).toContain("0.93 × the upper quartile of those groups");
  });
});

describe("the isolation's headline is the kind's bandwidth, whatever else the test checks", () => {
  const wrong: Expectation = { metric: "wrong", unit: "count", max: 0, text: "wrong: { max: 0 }" };

  test("wrong: { max: 0 } alone: busbw judged by the relative rule (no floor)", () => {
    expect(headlineRule("collective", [wrong], undefined)).toEqual({ metric: "busbw", unit: "GB/s", higher: true });
  });

  test("a floor on busbw beside it: the floor", () => {
    const busbw: Expectation = { metric: "busbw", unit: "GB/s", min: 40, text: "busbw: { min: 40 }" };
    expect(headlineRule("collective", [wrong, busbw], undefined)).toEqual({ metric: "busbw", unit: "GB/s", higher: true, floor: 40 });
  });
});
