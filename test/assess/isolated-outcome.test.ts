// A pattern test's outcome from its isolation: green only when every node was judged good.
import { expect, test } from "bun:test";
import { isolatedOutcome } from "../../lib/assess/isolation.ts";
import type { IsolationVerdict, NodeVerdict } from "../../lib/core/isolation.ts";
import type { UnitResult } from "../../lib/core/types.ts";

const node = (name: string, verdict: NodeVerdict["verdict"]): NodeVerdict => ({ node: name, verdict, reason: verdict, evidence: [] });
const verdictOf = (nodes: NodeVerdict[], extra: Partial<IsolationVerdict> = {}): IsolationVerdict =>
  ({ pattern: "pairwise", nodes, bad: [], badPairs: [], unresolved: [], rounds: 2, launches: 4, groups: [], rule: "", complete: true, ...extra }) as IsolationVerdict;
const units = [{ unit: "1.a+b" } as UnitResult];

test("every node good: passed", () => {
  expect(isolatedOutcome(verdictOf([node("a", "good"), node("b", "good")]), units)).toBe("passed");
});

test("a node seen failing that no second pass confirmed or cleared: an error, never passed", () => {
  expect(isolatedOutcome(verdictOf([node("a", "good"), node("b", "suspect-unconfirmed")]), units)).toBe("error");
});

test("a bad node fails; an untested node or a stopped isolation is an error", () => {
  expect(isolatedOutcome(verdictOf([node("a", "bad"), node("b", "good")], { bad: ["a"] }), units)).toBe("failed");
  expect(isolatedOutcome(verdictOf([node("a", "untested"), node("b", "good")]), units)).toBe("error");
  expect(isolatedOutcome(verdictOf([node("a", "good")], { complete: false }), units)).toBe("error");
});
