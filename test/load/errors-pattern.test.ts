// `pattern:`, `pairs:` and `onFailure:` against the kind and the node count.
// Each case: a suite, and exactly what `gpucheck validate` prints for it (exit 2).
import { describe, expect, test } from "bun:test";
import { load, rejects } from "./_load.ts";

describe("patterns", () => {
  rejects([
    [
      "a pattern on a per-node kind",
      `
name: s
tests:
  - name: a
    kind: inventory
    pattern: pairwise
`,
      `
suite.yaml:5:14: "pattern: pairwise" does not apply to kind "inventory", which measures one node at a time: use "pattern: each-node"
      pattern: pairwise
               ^
`,
    ],
    [
      "nodes beside an isolating pattern",
      `
name: s
tests:
  - name: b
    kind: collective
    pattern: bisect
    nodes: 4
`,
      `
suite.yaml:6:5: "nodes" does not apply with "pattern: bisect": the pattern picks the nodes of each run from every host of the run
      nodes: 4
      ^
`,
    ],
    [
      "bisect on a kind that measures a pair",
      `
name: s
tests:
  - name: c
    kind: nic
    pattern: adaptive
`,
      `
suite.yaml:5:14: "pattern: adaptive" does not apply to kind "nic", which measures exactly two nodes: use "pattern: pairwise"
      pattern: adaptive
               ^
`,
    ],
    [
      "pairs without pairwise",
      `
name: s
tests:
  - name: d
    kind: collective
    pairs: 3
`,
      `
suite.yaml:5:5: "pairs" applies only with "pattern: pairwise" (k rounds of random pairs instead of all N−1), not with "pattern: ring"
      pairs: 3
      ^
`,
    ],
    [
      "onFailure beside an isolating pattern",
      `
name: s
tests:
  - name: e
    kind: collective
    pattern: pairwise
    onFailure: isolate
`,
      `
suite.yaml:6:5: "onFailure: isolate" applies only to "pattern: ring": "pattern: pairwise" isolates by itself
      onFailure: isolate
      ^
`,
    ],
    [
      "onFailure on one node",
      `
name: s
tests:
  - name: f
    kind: collective
    nodes: 1
    onFailure: isolate
`,
      `
suite.yaml:6:5: "onFailure: isolate" needs a test over several nodes: "nodes" is 1
      onFailure: isolate
      ^
`,
    ],
    [
      "onFailure on a pair kind",
      `
name: s
tests:
  - name: f
    kind: nic
    nodes: 2
    onFailure: isolate
`,
      `
suite.yaml:6:5: "onFailure: isolate" does not apply to kind "nic", which measures exactly two nodes: use "pattern: pairwise"
      onFailure: isolate
      ^
`,
    ],
    [
      "each-node over two nodes",
      `
name: s
tests:
  - name: g
    kind: collective
    pattern: each-node
    nodes: 2
`,
      `
suite.yaml:6:12: "pattern: each-node" runs the test on one node at a time: "nodes" must be 1, got 2
      nodes: 2
             ^
`,
    ],
    [
      "an unknown pattern",
      `
name: s
tests:
  - name: h
    kind: collective
    pattern: pairs
`,
      `
suite.yaml:5:14: invalid pattern "pairs": expected one of ring, pairwise, bisect, adaptive, each-node
      pattern: pairs
               ^
`,
    ],
    [
      "perNode beside pairwise",
      `
name: s
tests:
  - name: i
    kind: collective
    perNode: true
    pattern: pairwise
`,
      `
suite.yaml:5:5: "perNode: true" contradicts "pattern: pairwise", which runs the test on groups of nodes
      perNode: true
      ^
`,
    ],
    [
      "perNode beside ring",
      `
name: s
tests:
  - name: i
    kind: collective
    perNode: true
    pattern: ring
`,
      `
suite.yaml:5:5: "perNode: true" contradicts "pattern: ring", which runs the test once over "nodes" hosts
      perNode: true
      ^
`,
    ],
    [
      "perNode false beside each-node",
      `
name: s
tests:
  - name: i
    kind: collective
    perNode: false
    pattern: each-node
`,
      `
suite.yaml:5:5: "perNode: false" contradicts "pattern: each-node", which runs the test on every node separately
      perNode: false
      ^
`,
    ],
    [
      "an isolating pattern on k8s in a Kubeflow mode, whose operators own the pods' rendezvous and naming",
      `
name: s
platform:
  type: k8s
  k8s: { image: "x:1", mode: pytorchjob, nodes: [a, b, c] }
tests:
  - name: j
    kind: collective
    pattern: pairwise
`,
      `
suite.yaml:8:14: "pattern: pairwise" runs groups of nodes side by side, which platform "k8s" with mode "pytorchjob" cannot: use mode: indexed-job for it
      pattern: pairwise
               ^
`,
    ],
    [
      "onFailure: isolate on k8s in mode mpijob",
      `
name: s
platform: { type: k8s, k8s: { image: "x:1", mode: mpijob, nodes: [a, b, c] } }
tests:
  - { name: k, kind: collective, nodes: 3, onFailure: isolate }
`,
      `
suite.yaml:4:55: "onFailure: isolate" runs groups of nodes side by side, which platform "k8s" with mode "mpijob" cannot: use mode: indexed-job for it
    - { name: k, kind: collective, nodes: 3, onFailure: isolate }
                                                        ^
`,
    ],
  ]);
});

describe("screen: the groups adaptive screens first", () => {
  const suite = (pattern: string, screen: string) => `
name: s
tests:
  - name: f
    kind: collective
    ${pattern}
    screen: ${screen}
`;
  rejects([
    [
      "screen beside pairwise",
      suite("pattern: pairwise", "{ rack1: [a, b] }"),
      `
suite.yaml:6:5: "screen" applies only with "pattern: adaptive" or "onFailure: isolate" (the groups screened first, then bisected), not with "pattern: pairwise"
      screen: { rack1: [a, b] }
      ^
`,
    ],
    [
      "screen not a map",
      suite("pattern: adaptive", "[a, b]"),
      `
suite.yaml:6:13: "screen" must be a map of group names to lists of hosts, such as { rack1: [gpu01, gpu02] }, got a list
      screen: [a, b]
              ^
`,
    ],
    [
      "a group of one host",
      suite("pattern: adaptive", "{ rack1: [a, b], rack2: [c] }"),
      `
suite.yaml:6:37: group "rack2" has 1 host (c): a multi-node test needs 2
      screen: { rack1: [a, b], rack2: [c] }
                                      ^
`,
    ],
    [
      "a host in two groups",
      suite("onFailure: isolate", "{ rack1: [a, b], rack2: [b, c] }"),
      `
suite.yaml:6:37: "b" is in group "rack1" and group "rack2"
      screen: { rack1: [a, b], rack2: [b, c] }
                                      ^
`,
    ],
    [
      "a host twice in one group",
      suite("pattern: adaptive", "{ rack1: [a, a] }"),
      `
suite.yaml:6:22: "a" is listed twice in group "rack1"
      screen: { rack1: [a, a] }
                       ^
`,
    ],
    [
      "a group name with a space",
      suite("pattern: adaptive", '{ "rack 1": [a, b] }'),
      `
suite.yaml:6:15: invalid group name "rack 1": expected letters, digits, '.', '_' and '-', starting with a letter or digit
      screen: { "rack 1": [a, b] }
                ^
`,
    ],
    [
      "a list that is not of host names",
      suite("pattern: adaptive", "{ rack1: [a, 3] }"),
      `
suite.yaml:6:26: item 2 of "rack1" must be a host name, got 3
      screen: { rack1: [a, 3] }
                           ^
`,
    ],
  ]);

  test("the groups reach the test's spec in order", async () => {
    const s = await load({ "s.yaml": suite("pattern: adaptive", "{ rack1: [a, b], rack2: [c, d, e] }") });
    expect(s.tests[0]!.screen).toEqual([
      { name: "rack1", nodes: ["a", "b"] },
      { name: "rack2", nodes: ["c", "d", "e"] },
    ]);
  });
});

describe("what patterns leave as it was", () => {
  test("a Kubeflow mode in the k8s block of a suite that runs elsewhere, and a k8s test without a pattern, stay valid", async () => {
    const k8s = 'k8s: { image: "x:1", mode: pytorchjob, nodes: [a, b] }';
    const ssh = await load({ "s.yaml": `name: s\nplatform: { type: ssh, ${k8s} }\ntests:\n  - { name: a, kind: collective, pattern: pairwise }\n` });
    expect(ssh.tests[0]!.pattern).toBe("pairwise");
    const ring = await load({ "s.yaml": `name: s\nplatform: { type: k8s, ${k8s} }\ntests:\n  - { name: a, kind: collective, nodes: 2 }\n` });
    expect(ring.tests[0]!.nodes).toBe(2);
  });

  test("perNode: true beside nodes: 4 stays valid: every host, one at a time (only a written each-node pattern checks nodes)", async () => {
    const s = await load({ "s.yaml": "name: s\ntests:\n  - { name: a, kind: collective, perNode: true, nodes: 4, gpusPerNode: 0, ranksPerNode: 2 }\n" });
    expect(s.tests[0]).toMatchObject({ perNode: true, nodes: 4 });
    expect(s.tests[0]!.pattern).toBeUndefined();
  });
});
