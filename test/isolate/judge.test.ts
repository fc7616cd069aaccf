// lib/isolate/judge.ts: how one launch counts against its nodes. Failed and timed out are evidence,
// an infrastructure error and a missing value are not; with no floor a value is held against the best
// comparable group by NVIDIA ClusterKit's rule (0.93 × the best bandwidth, 2.1 × the lowest latency).
import { describe, expect, test } from "bun:test";
import { CLUSTERKIT, Ledger } from "../../lib/isolate/judge.ts";
import type { GroupResult, Round } from "../../lib/isolate/mod.ts";

const group = (nodes: string[]) => ({ name: nodes.length === 2 ? nodes.join("+") : `g-${nodes.join("")}`, nodes });
const round = (groups: string[][]): Round => ({ label: "pairwise 1/3", phase: "pairwise", groups: groups.map(group) });
const result = (nodes: string[], status: GroupResult["status"], value: number | null, o: Partial<GroupResult> = {}): GroupResult => ({
  group: group(nodes),
  status,
  value,
  unit: "GB/s",
  higher: true,
  ...o,
});

describe("status", () => {
  test("failed and timed out are bad, an error and a missing value are no evidence", () => {
    const l = new Ledger(CLUSTERKIT);
    const r = round([
      ["a", "b"],
      ["c", "d"],
      ["e", "f"],
      ["g", "h"],
    ]);
    const got = l.add(r, [
      result(["a", "b"], "failed", null, { message: "rank 1 exited with 1" }),
      result(["c", "d"], "timeout", null),
      result(["e", "f"], "error", null, { message: "ssh: connect to host e port 22: Connection refused" }),
      result(["g", "h"], "passed", null),
    ]);
    expect(got.map((g) => [g.judged, g.why])).toEqual([
      ["bad", "failed: rank 1 exited with 1"],
      ["bad", "timed out"],
      ["unjudged", "not evidence: the launch failed: ssh: connect to host e port 22: Connection refused"],
      ["unjudged", "not evidence: passed without a value"],
    ]);
    expect(got.map((g) => [g.phase, g.round])).toEqual(Array(4).fill(["pairwise", 1]));
  });
});

describe("the relative rule (no floor)", () => {
  test("bandwidth below 0.93 × the upper quartile of the comparable pairs is bad, at 0.94 it is not", () => {
    const l = new Ledger(CLUSTERKIT);
    const names = ["a", "b", "c", "d", "e", "f", "g", "h", "i", "j"];
    const pairs = [0, 1, 2, 3, 4].map((i) => [names[2 * i]!, names[2 * i + 1]!]);
    const got = l.add(
      round(pairs),
      [100, 100, 100, 92, 94].map((v, i) => result(pairs[i]!, "passed", v)),
    );
    expect(got.map((g) => [g.judged, g.reference, g.ratio, g.why])).toEqual([
      ["good", 100, 1, "100 GB/s = 1 × the upper quartile of the comparable groups, not below 0.93"],
      ["good", 100, 1, "100 GB/s = 1 × the upper quartile of the comparable groups, not below 0.93"],
      ["good", 100, 1, "100 GB/s = 1 × the upper quartile of the comparable groups, not below 0.93"],
      ["bad", 100, 0.92, "92 GB/s = 0.92 × the upper quartile of the comparable groups, below 0.93"],
      ["good", 100, 0.94, "94 GB/s = 0.94 × the upper quartile of the comparable groups, not below 0.93"],
    ]);
  });

  test("one lucky pair does not raise the reference (ClusterKit's best pair would have made it 150)", () => {
    const l = new Ledger(CLUSTERKIT);
    const pairs = ["ab", "cd", "ef", "gh", "ij"].map((p) => p.split(""));
    const got = l.add(
      round(pairs),
      [100, 100, 100, 95, 150].map((v, i) => result(pairs[i]!, "passed", v)),
    );
    expect(got.map((g) => [g.judged, g.reference])).toEqual([...Array(4).fill(["good", 100]), ["good", 100]]);
  });

  test("latency above 2.1 × the lower quartile is bad", () => {
    const l = new Ledger(CLUSTERKIT);
    const lat = (nodes: string[], v: number) => result(nodes, "passed", v, { unit: "us", higher: false });
    const pairs = ["ab", "cd", "ef", "gh", "ij"].map((p) => p.split(""));
    const got = l.add(
      round(pairs),
      [10, 10, 10, 22, 20].map((v, i) => lat(pairs[i]!, v)),
    );
    expect(got.map((g) => [g.judged, g.why])).toEqual([
      ["good", "10 us = 1 × the lower quartile of the comparable groups, not above 2.1"],
      ["good", "10 us = 1 × the lower quartile of the comparable groups, not above 2.1"],
      ["good", "10 us = 1 × the lower quartile of the comparable groups, not above 2.1"],
      ["bad", "22 us = 2.2 × the lower quartile of the comparable groups, above 2.1"],
      ["good", "20 us = 2 × the lower quartile of the comparable groups, not above 2.1"],
    ]);
  });

  test("a group alone of its size has nothing to be held against: its status decides", () => {
    const l = new Ledger(CLUSTERKIT);
    const [g] = l.add(round([["a", "b", "c", "d"]]), [result(["a", "b", "c", "d"], "passed", 10)]);
    expect([g!.judged, g!.reference, g!.why]).toEqual(["good", null, "passed; no comparable group to hold 10 GB/s against"]);
    // a pair is not held against a group of four (latency and bandwidth change with the node count)
    const [p] = l.add(round([["e", "f"]]), [result(["e", "f"], "passed", 5)]);
    expect(p!.reference).toBeNull();
    // 15 and 16 nodes (one screen round's groups) are comparable
    const big = (k: number, n: number) => Array.from({ length: n }, (_, i) => `${k}-${i}`);
    const got = l.add(round([big(1, 16), big(2, 15)]), [result(big(1, 16), "passed", 100), result(big(2, 15), "passed", 50)]);
    expect(got.map((g) => g.judged)).toEqual(["good", "bad"]);
  });

  test("comparable groups that measured 0 give no ratio: no evidence", () => {
    const l = new Ledger(CLUSTERKIT);
    const got = l.add(
      round([
        ["a", "b"],
        ["c", "d"],
      ]),
      [result(["a", "b"], "passed", 0), result(["c", "d"], "passed", 0)],
    );
    expect(got.map((g) => [g.judged, g.why])).toEqual(Array(2).fill(["unjudged", "not evidence: the upper quartile of the comparable groups is 0, no ratio to judge 0 GB/s by"]));
  });

  test("a pass judged again once later groups raise the reference (the pairwise pass is judged when complete)", () => {
    const l = new Ledger(CLUSTERKIT);
    const [first] = l.add(
      round([
        ["a", "b"],
        ["c", "d"],
      ]),
      [result(["a", "b"], "passed", 50), result(["c", "d"], "passed", 50)],
    );
    expect(first!.judged).toBe("good");
    l.add(
      round([
        ["a", "c"],
        ["b", "d"],
      ]),
      [result(["a", "c"], "passed", 100), result(["b", "d"], "passed", 100)],
    );
    l.rejudge([first!]);
    expect([first!.judged, first!.ratio]).toEqual(["bad", 0.5]);
  });
});

test("with a floor the relative rule is off: the value against the floor", () => {
  const l = new Ledger({ ...CLUSTERKIT, floor: 90 });
  const got = l.add(
    round([
      ["a", "b"],
      ["c", "d"],
    ]),
    [result(["a", "b"], "passed", 89), result(["c", "d"], "passed", 90)],
  );
  expect(got.map((g) => [g.judged, g.reference, g.why])).toEqual([
    ["bad", 90, "89 GB/s below the floor 90 GB/s"],
    ["good", 90, "90 GB/s at or above the floor 90 GB/s"],
  ]);
  const lat = new Ledger({ ...CLUSTERKIT, floor: 5 }).add(round([["a", "b"]]), [result(["a", "b"], "passed", 6, { unit: "us", higher: false })]);
  expect(lat.map((g) => [g.judged, g.why])).toEqual([["bad", "6 us above the floor 5 us"]]);
});

test("results that do not match the round are refused with the group named", () => {
  const l = new Ledger(CLUSTERKIT);
  const r = round([
    ["a", "b"],
    ["c", "d"],
  ]);
  expect(() => l.add(r, [result(["a", "b"], "passed", 1)])).toThrow('feed: no result for group "c+d" of round "pairwise 1/3"');
  expect(() => l.add(r, [result(["a", "b"], "passed", 1), result(["c", "d"], "passed", 1), result(["a", "c"], "passed", 1)])).toThrow(
    'feed: round "pairwise 1/3" has no group "a+c"',
  );
  expect(() => l.add(r, [result(["a", "b"], "passed", 1), result(["a", "b"], "passed", 1)])).toThrow('feed: two results for group "a+b" of round "pairwise 1/3"');
  expect(l.rounds).toBe(0);
});
