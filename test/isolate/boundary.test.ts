// lib/isolate/boundary.ts alone: the binary searches for a pair that fails only together, over every
// place the pair can sit in a group's node list, in at most 2·⌈log2 n⌉ + 1 launches.
import { expect, test } from "bun:test";
import { Boundary } from "../../lib/isolate/boundary.ts";

const list = (n: number) => Array.from({ length: n }, (_, i) => `n${i}`);

test("finds the pair wherever it sits, never launching one node alone", () => {
  for (const n of [2, 3, 5, 8, 13, 16]) {
    const nodes = list(n);
    for (let i = 0; i < n; i++)
      for (let j = i + 1; j < n; j++) {
        const b = new Boundary("boundary-x", nodes);
        let launches = 0;
        for (let nodesNow = b.next(); nodesNow; nodesNow = b.next()) {
          expect(nodesNow.length).toBeGreaterThanOrEqual(2);
          launches++;
          b.took(nodesNow.includes(nodes[i]!) && nodesNow.includes(nodes[j]!) ? "bad" : "good", "");
        }
        expect(b.outcome).toEqual({ pair: [nodes[i]!, nodes[j]!] });
        expect(launches).toBeLessThanOrEqual(2 * Math.ceil(Math.log2(n)) + 1);
      }
  }
});

test("a failure that does not come back, or a launch with no evidence, ends the search unresolved", () => {
  const b = new Boundary("boundary-x", list(4));
  for (let nodes = b.next(); nodes; nodes = b.next()) b.took("good", "");
  expect(b.outcome).toEqual({ stopped: "the boundary probe narrowed it to n2+n3, which then passed alone" });
  const e = new Boundary("boundary-x", list(4));
  e.next();
  e.took("unjudged", "not evidence: the launch failed");
  expect(e.next()).toBeUndefined();
  expect(e.outcome).toEqual({ stopped: "the boundary probe n0, n1 gave no evidence (not evidence: the launch failed)" });
});
