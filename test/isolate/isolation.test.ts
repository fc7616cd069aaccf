// The isolation state machines driven by hand-written clusters (test/isolate/sim.ts): the rounds they
// ask for, the protocol (next until fed, feed only what was asked), the second pass, bad pairs,
// infrastructure errors, partial verdicts, and the counts `gpucheck plan` prints.
import { describe, expect, test } from "bun:test";
import { type GroupResult, isolation, plannedCount, screenGroups } from "../../lib/isolate/mod.ts";
import { clusterOf, drive, nodeNames, runGroup } from "./sim.ts";

const verdicts = (v: ReturnType<typeof drive>) => Object.fromEntries(v.nodes.map((n) => [n.node, n.verdict]));

describe("pairwise", () => {
  test("one failing node among 4: the circle's 3 rounds, then its second pass with 2 healthy partners; its partners stay good", () => {
    const c = clusterOf(4, { gpu003: { kind: "failing" } });
    const v = drive(isolation("pairwise", c.nodes), c);
    expect(v.groups.map((g) => `${g.round} ${g.phase} ${g.group.name} ${g.judged}`)).toEqual([
      "1 pairwise gpu001+gpu002 good",
      "1 pairwise gpu003+gpu004 bad",
      "2 pairwise gpu001+gpu003 bad",
      "2 pairwise gpu004+gpu002 good",
      "3 pairwise gpu001+gpu004 good",
      "3 pairwise gpu002+gpu003 bad",
      "4 second-pass gpu003+gpu001 bad",
      "5 second-pass gpu003+gpu002 bad",
    ]);
    expect(v.bad).toEqual(["gpu003"]);
    expect(verdicts(v)).toEqual({ gpu001: "good", gpu002: "good", gpu003: "bad", gpu004: "good" });
    const bad = v.nodes.find((n) => n.node === "gpu003")!;
    expect(bad.reason).toBe("3 of 3 pairs bad (3 failed); second pass confirmed: 2 of 2 pairs with healthy partners bad (gpu001, gpu002)");
    expect(bad.evidence.map((e) => `${e.group} ${e.partners.join(",")} ${e.status} ${e.phase}`)).toEqual([
      "gpu003+gpu004 gpu004 failed pairwise",
      "gpu001+gpu003 gpu001 failed pairwise",
      "gpu002+gpu003 gpu002 failed pairwise",
      "gpu003+gpu001 gpu001 failed second-pass",
      "gpu003+gpu002 gpu002 failed second-pass",
    ]);
    expect(v.nodes.find((n) => n.node === "gpu004")!.reason).toBe("passed 2 of 3 groups; its failing groups held gpu003");
    expect([v.rounds, v.launches, v.complete]).toEqual([5, 8, true]);
  });

  test("a slow node: its pairs held against the upper quartile of the pass", () => {
    const c = clusterOf(6, { gpu002: { kind: "slow", factor: 0.5 } }, { noise: 0.01 });
    const v = drive(isolation("pairwise", c.nodes), c);
    expect(v.bad).toEqual(["gpu002"]);
    const e = v.nodes.find((n) => n.node === "gpu002")!;
    expect(e.reason).toMatch(
      /^5 of 5 pairs bad \(5 beyond the limit: median 0\.(49|50|51) × the reference\); second pass confirmed: 2 of 2 pairs with healthy partners bad \(gpu001, gpu003\)$/,
    );
    expect(e.evidence.every((x) => x.ratio !== null && x.ratio < 0.93 && x.reference !== null)).toBe(true);
  });

  test("a pair that fails only together names neither node: re-tested, then reported as a bad pair", () => {
    const c = clusterOf(6, {}, { pairs: [["gpu002", "gpu005"]] });
    const v = drive(isolation("pairwise", c.nodes), c);
    expect(v.bad).toEqual([]);
    expect(v.badPairs).toEqual(["gpu002+gpu005"]);
    expect(Object.values(verdicts(v)).every((x) => x === "good")).toBe(true);
    expect(v.groups.filter((g) => g.phase === "second-pass").map((g) => `${g.group.name} ${g.judged}`)).toEqual(["gpu002+gpu005 bad"]);
  });

  test("no fault: every pair once, no second pass, no node named", () => {
    const c = clusterOf(8, {}, { noise: 0.01 });
    const v = drive(isolation("pairwise", c.nodes), c);
    expect([v.rounds, v.launches, v.bad, v.badPairs, v.unresolved]).toEqual([7, 28, [], [], []]);
  });

  test("pairs: k random matchings, and k as large as the circle falls back to the circle", () => {
    const c = clusterOf(8, { gpu004: { kind: "hanging" } });
    const v = drive(isolation("pairwise", c.nodes, { pairs: 3, seed: 5 }), c);
    expect(v.bad).toEqual(["gpu004"]);
    expect(v.groups.filter((g) => g.phase === "pairwise")).toHaveLength(12);
    expect(v.rule).toStartWith("pairwise: 3 rounds of random perfect matchings (seed 5).");
    const all = drive(isolation("pairwise", c.nodes, { pairs: 9 }), c);
    expect(all.rule).toStartWith("pairwise: pairs: 9 asks for as many rounds as every pair once takes (7): every pair once (the circle method).");
    expect(all.groups.filter((g) => g.phase === "pairwise")).toHaveLength(28);
  });

  test("2 nodes and one fails: no third node to tell which, so both stay suspect", () => {
    const c = clusterOf(2, { gpu001: { kind: "failing" } });
    const v = drive(isolation("pairwise", c.nodes), c);
    expect(v.bad).toEqual([]);
    expect(verdicts(v)).toEqual({ gpu001: "suspect-unconfirmed", gpu002: "suspect-unconfirmed" });
    expect(v.nodes[0]!.reason).toBe("1 of 1 pairs bad (1 failed); second pass not possible: too few healthy nodes to pair it with");
  });
});

describe("the protocol", () => {
  test("next() gives the same round until it is fed, feed() without a round is refused, done is undefined", () => {
    const c = clusterOf(3, {});
    const iso = isolation("pairwise", c.nodes);
    expect(() => iso.feed([])).toThrow("feed: no round is waiting for results (call next() first)");
    const r = iso.next()!;
    expect(iso.next()).toBe(r);
    expect(() => iso.feed([])).toThrow(`feed: no result for group "gpu001+gpu002" of round "pairwise 1/3"`);
    iso.feed(r.groups.map((g) => runGroup(c, g)));
    expect(iso.next()!.label).toBe("pairwise 2/3");
    drive(iso, c);
    expect(iso.next()).toBeUndefined();
  });

  test("a partial verdict (Ctrl-C) before the second pass: the suspects so far, unconfirmed, the rest untested or good", () => {
    const c = clusterOf(4, { gpu001: { kind: "failing" } });
    const iso = isolation("pairwise", c.nodes);
    for (let i = 0; i < 2; i++) {
      const r = iso.next()!;
      iso.feed(r.groups.map((g) => runGroup(c, g)));
    }
    const v = iso.verdict();
    expect(v.complete).toBe(false);
    expect([v.rounds, v.launches]).toEqual([2, 4]);
    expect(v.nodes.map((n) => `${n.node} ${n.verdict}: ${n.reason}`)).toEqual([
      "gpu001 suspect-unconfirmed: 2 of 2 pairs bad (2 failed); the isolation stopped before the second pass",
      "gpu002 good: passed 1 of 2 groups; its failing groups held gpu001 (unconfirmed)",
      "gpu003 good: passed 1 of 2 groups; its failing groups held gpu001 (unconfirmed)",
      "gpu004 good: passed 2 of 2 groups",
    ]);
  });

  test("a launch that failed for the infrastructure is run once more; twice, and its nodes are untested", () => {
    const c = clusterOf(4, {});
    const iso = isolation("bisect", c.nodes);
    const error = (g: GroupResult["group"]): GroupResult => ({ group: g, status: "error", value: null, higher: true, message: "sbatch: error: Batch job submission failed" });
    const first = iso.next()!;
    iso.feed(first.groups.map(error));
    const again = iso.next()!;
    expect(again.groups).toEqual(first.groups);
    iso.feed(again.groups.map(error));
    expect(iso.next()).toBeUndefined();
    const v = iso.verdict();
    expect(v.nodes.map((n) => n.verdict)).toEqual(Array(4).fill("untested"));
    expect(v.nodes[0]!.reason).toBe("its group all gave no evidence twice (not evidence: the launch failed: sbatch: error: Batch job submission failed)");
  });
});

test("pairwise: a pair whose launch failed for the infrastructure is re-run after the pass and counted once", () => {
  const c = clusterOf(4, { gpu004: { kind: "failing" } });
  const iso = isolation("pairwise", c.nodes);
  let first = true;
  for (let r = iso.next(); r; r = iso.next())
    iso.feed(
      r.groups.map((g) => {
        if (first && g.name === "gpu003+gpu004") {
          first = false;
          return { group: g, status: "error", value: null, higher: true, message: "srun: error: Unable to create step" };
        }
        return runGroup(c, g);
      }),
    );
  const v = iso.verdict();
  expect(v.groups.filter((g) => g.group.name === "gpu003+gpu004").map((g) => `${g.round} ${g.phase} ${g.status}`)).toEqual(["1 pairwise error", "4 pairwise failed"]);
  expect(v.bad).toEqual(["gpu004"]);
  expect(v.nodes.find((n) => n.node === "gpu004")!.reason).toStartWith("3 of 3 pairs bad (3 failed); second pass confirmed");
});

describe("bisect and adaptive", () => {
  test("bisect: a hanging node among 8 found by halves, confirmed with healthy partners; 9 launches", () => {
    const c = clusterOf(8, { gpu006: { kind: "hanging" } });
    const v = drive(isolation("bisect", c.nodes), c);
    expect(v.groups.map((g) => `${g.round} ${g.phase} ${g.group.name} ${g.status}`)).toEqual([
      "1 bisect all timeout",
      "2 bisect half-1 passed",
      "2 bisect half-2 timeout",
      "3 bisect gpu005+gpu006 timeout",
      "3 bisect gpu007+gpu008 passed",
      // a clean pair of known-good nodes to hold the pairs against (relative rule, no floor)
      "3 bisect gpu001+gpu002 passed",
      "4 bisect gpu005+gpu001 passed",
      "4 bisect gpu006+gpu002 timeout",
      "5 confirm gpu006+gpu001 timeout",
    ]);
    expect(v.bad).toEqual(["gpu006"]);
    expect(v.nodes.find((n) => n.node === "gpu006")!.reason).toBe(
      "bisection: all → half-2 → gpu005+gpu006 bad; gpu006+gpu002 timed out; second pass confirmed: 2 of 2 pairs with healthy partners bad (gpu002, gpu001)",
    );
  });

  test("bisect with no fault: one launch", () => {
    const c = clusterOf(32, {});
    const v = drive(isolation("bisect", c.nodes), c);
    expect([v.rounds, v.launches, v.bad]).toEqual([1, 1, []]);
  });

  test("bisect: a pair fault across the halves is found by the boundary probe", () => {
    const c = clusterOf(8, {}, { pairs: [["gpu002", "gpu007"]] });
    const v = drive(isolation("bisect", c.nodes, { floor: 30 }), c);
    expect(v.bad).toEqual([]);
    expect(v.badPairs).toEqual(["gpu002+gpu007"]);
    expect(v.groups.filter((g) => g.phase === "boundary").length).toBeLessThanOrEqual(2 * 3 + 1);
    expect(Object.values(verdicts(v)).every((x) => x === "good")).toBe(true);
  });

  test("bisect without a floor cannot find a slow node when the whole set passes: nothing to compare the one run with", () => {
    const c = clusterOf(8, { gpu003: { kind: "slow", factor: 0.5 } });
    const v = drive(isolation("bisect", c.nodes), c);
    expect([v.launches, v.bad]).toEqual([1, []]);
    expect(v.groups[0]!.why).toBe("passed; no comparable group to hold 20 GB/s against");
    // with the test's floor the same run is bisected
    expect(drive(isolation("bisect", c.nodes, { floor: 36 }), c).bad).toEqual(["gpu003"]);
  });

  test("adaptive: screens √N groups, bisects the failing one", () => {
    const c = clusterOf(16, { gpu011: { kind: "failing" } });
    const v = drive(isolation("adaptive", c.nodes), c);
    expect(v.groups.filter((g) => g.phase === "screen").map((g) => `${g.group.name} ${g.status}`)).toEqual([
      "screen-1 passed",
      "screen-2 passed",
      "screen-3 failed",
      "screen-4 passed",
    ]);
    expect(v.bad).toEqual(["gpu011"]);
  });

  test("3 nodes with a failing one: no node is known good after the bisection, so the three are tested pairwise", () => {
    const c = clusterOf(3, { gpu001: { kind: "failing" } });
    const v = drive(isolation("bisect", c.nodes), c);
    expect(v.bad).toEqual(["gpu001"]);
    expect(v.nodes[0]!.reason).toStartWith("with no node known good, tested pairwise among the 3 left: 2 of 2 pairs bad (2 failed); second pass confirmed");
  });
});

test("screenGroups: about √N groups whose sizes differ by one at most, never one node, or the suite's groups", () => {
  const sizes = (n: number) => screenGroups(nodeNames(n)).map((g) => g.nodes.length);
  expect(sizes(232)).toEqual([...Array(7).fill(16), ...Array(8).fill(15)]);
  expect(sizes(2)).toEqual([2]);
  expect(sizes(3)).toEqual([3]);
  expect(sizes(8)).toEqual([4, 4]);
  expect(sizes(1000)).toEqual([...Array(8).fill(33), ...Array(23).fill(32)]);
  expect(
    screenGroups(
      ["a", "b", "c", "d"],
      [
        { name: "rail0", nodes: ["a", "c"] },
        { name: "rail1", nodes: ["b", "d"] },
      ],
    ),
  ).toEqual([
    { name: "rail0", nodes: ["a", "c"] },
    { name: "rail1", nodes: ["b", "d"] },
  ]);
});

test("plannedCount: the first pass, against the naive all-pairs count", () => {
  expect(plannedCount("pairwise", 32)).toEqual({ rounds: 31, launches: 496, note: "every pair once; a second pass follows for suspects" });
  expect(plannedCount("pairwise", 33)).toEqual({ rounds: 33, launches: 528, note: "every pair once; a second pass follows for suspects" });
  expect(plannedCount("pairwise", 1000, { pairs: 4 })).toEqual({ rounds: 4, launches: 2000, note: "4 random matchings; a second pass follows for suspects" });
  expect(plannedCount("bisect", 1000)).toEqual({ rounds: 1, launches: 1, note: "the whole set; bisection follows only if it fails" });
  expect(plannedCount("adaptive", 232)).toEqual({ rounds: 1, launches: 15, note: "the screen round only (15 groups); bisection follows for the groups that fail" });
  expect(plannedCount("adaptive", 8, { groups: ["a", "b", "c"].map((name) => ({ name, nodes: [name] })) }).launches).toBe(3);
});
