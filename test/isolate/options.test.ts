// isolation()'s refusals: every bad node list and option named with its value, as a SuiteError
// (exit 2, nothing has run).
import { expect, test } from "bun:test";
import { SuiteError } from "../../lib/core/errors.ts";
import { type IsolationOptions, isolation, type Pattern } from "../../lib/isolate/mod.ts";

const NODES = ["gpu01", "gpu02", "gpu03", "gpu04"];

function refused(pattern: Pattern, opts: IsolationOptions, nodes = NODES): string {
  try {
    isolation(pattern, nodes, opts);
  } catch (e) {
    expect(e).toBeInstanceOf(SuiteError);
    return (e as Error).message;
  }
  throw new Error("not refused");
}

test("node lists", () => {
  expect(refused("bisect", {}, ["gpu01"])).toBe("bisect needs at least 2 nodes, got 1 (gpu01)");
  expect(refused("adaptive", {}, ["gpu01", "gpu01"])).toBe('adaptive: node "gpu01" is listed twice');
  expect(refused("pairwise", {}, [])).toBe("pairwise needs at least 2 nodes, got 0");
});

test("options", () => {
  expect(refused("pairwise", { pairs: 0 })).toBe("pairs must be a whole number of rounds, 1 or more: got 0");
  expect(refused("pairwise", { pairs: 1.5 })).toBe("pairs must be a whole number of rounds, 1 or more: got 1.5");
  expect(refused("bisect", { pairs: 2 })).toBe("pairs applies to the pairwise pattern only, not bisect");
  expect(refused("pairwise", { seed: 0.5 })).toBe("seed must be a whole number: got 0.5");
  expect(refused("pairwise", { outlierBelow: 1.2 })).toBe("outlierBelow must be between 0 and 1 (a fraction of the best group): got 1.2");
  expect(refused("pairwise", { outlierBelow: 0 })).toBe("outlierBelow must be between 0 and 1 (a fraction of the best group): got 0");
  expect(refused("pairwise", { latencyAbove: 1 })).toBe("latencyAbove must be above 1 (a multiple of the lowest latency): got 1");
  expect(refused("bisect", { confirmPartners: 0 })).toBe("confirmPartners must be a whole number, 1 or more: got 0");
  expect(refused("bisect", { floor: Number.NaN })).toBe("floor must be a finite number: got NaN");
});

test("the suite's groups for the adaptive screen", () => {
  const g = (...groups: string[][]) => groups.map((nodes, i) => ({ name: `rack${i + 1}`, nodes }));
  expect(refused("pairwise", { groups: g(NODES) })).toBe("groups applies to the adaptive pattern only, not pairwise");
  expect(refused("adaptive", { groups: g(["gpu01", "gpu02", "gpu03"], ["gpu04"]) })).toBe('groups: group "rack2" has 1 node (gpu04): a multi-node test needs 2');
  expect(refused("adaptive", { groups: g(["gpu01", "gpu02"], []) })).toBe('groups: group "rack2" has 0 nodes: a multi-node test needs 2');
  expect(refused("adaptive", { groups: g(["gpu01", "gpu02"], ["gpu03", "gpu09"]) })).toBe('groups: "gpu09" in group "rack2" is not one of the nodes');
  expect(refused("adaptive", { groups: g(["gpu01", "gpu02"], ["gpu02", "gpu03", "gpu04"]) })).toBe('groups: "gpu02" is in group "rack1" and group "rack2"');
  expect(refused("adaptive", { groups: g(["gpu01", "gpu02"]) })).toBe("groups: gpu03, gpu04 are in no group");
  expect(refused("adaptive", { groups: g(["gpu01", "gpu02", "gpu03"]) })).toBe("groups: gpu04 is in no group");
});

test("valid options are accepted", () => {
  expect(
    isolation("adaptive", NODES, {
      groups: [
        { name: "rack1", nodes: NODES.slice(0, 2) },
        { name: "rack2", nodes: NODES.slice(2) },
      ],
      floor: 40,
      confirmPartners: 1,
    }).next()?.groups,
  ).toEqual([
    { name: "gpu01+gpu02", nodes: ["gpu01", "gpu02"] },
    { name: "gpu03+gpu04", nodes: ["gpu03", "gpu04"] },
  ]);
});
