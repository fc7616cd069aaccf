// Bad structure: unknown and missing keys, wrong types and names.
// Each case: a suite, and exactly what `gpucheck validate` prints for it (exit 2).
import { describe } from "bun:test";
import { KIND_NAMES } from "../../lib/kinds/mod.ts";
import { rejects } from "./_load.ts";

// the registry's kinds, in its order: a new kind changes these messages and not this file
const KINDS = KIND_NAMES.join(", ");

describe("keys", () => {
  rejects([
    [
      "unknown key with a close match",
      `
name: s
tests:
  - name: a
    kind: collective
    gpusPerNod: 8
`,
      `
suite.yaml:5:5: unknown key "gpusPerNod": did you mean "gpusPerNode"?
      gpusPerNod: 8
      ^
`,
    ],
    [
      "unknown key with no close match lists the keys",
      `
name: s
tests:
  - name: a
    kind: collective
    colour: blue
`,
      `
suite.yaml:5:5: unknown key "colour": expected one of name, kind, description, nodes, gpusPerNode, ranksPerNode, perNode, pattern, pairs, onFailure, screen, timeout, env, python, ${KINDS}, expect
      colour: blue
      ^
`,
    ],
    [
      "unknown key in defaults, with another problem beside it",
      `
name: s
defaults:
  timeot: 10m
  queueTimeout: -5
tests:
  - { name: inv, kind: inventory }
`,
      `
suite.yaml:3:3: unknown key "timeot": did you mean "timeout"?
    timeot: 10m
    ^
suite.yaml:4:17: "queueTimeout" must be a positive duration, got -5
    queueTimeout: -5
                  ^
`,
    ],
    [
      "missing required test key, with its choices",
      `
name: s
tests:
  - name: a
    nodes: 1
`,
      `
suite.yaml:3:5: missing required key "kind": expected one of ${KINDS}
    - name: a
      ^
`,
    ],
    [
      "missing test name",
      `
name: s
tests:
  - kind: inventory
`,
      `
suite.yaml:3:5: missing required key "name"
    - kind: inventory
      ^
`,
    ],
    [
      "missing suite name",
      `
tests:
  - { name: inv, kind: inventory }
`,
      `
suite.yaml:1:1: missing required key "name"
  tests:
  ^
`,
    ],
    [
      "missing tests",
      `
name: s
`,
      `
suite.yaml:1:1: missing required key "tests"
  name: s
  ^
`,
    ],
    [
      "remove without extends",
      `
name: s
remove: [a]
tests:
  - { name: inv, kind: inventory }
`,
      `
suite.yaml:2:1: "remove" needs "extends": there is no parent suite to remove tests from
  remove: [a]
  ^
`,
    ],
  ]);
});

describe("types", () => {
  rejects([
    [
      "count given as text",
      `
name: s
tests:
  - name: a
    kind: collective
    nodes: two
`,
      `
suite.yaml:5:12: "nodes" must be a positive integer, got "two"
      nodes: two
             ^
`,
    ],
    [
      "zero count",
      `
name: s
tests:
  - name: a
    kind: collective
    nodes: 0
`,
      `
suite.yaml:5:12: "nodes" must be a positive integer, got 0
      nodes: 0
             ^
`,
    ],
    [
      "fractional count",
      `
name: s
tests:
  - name: a
    kind: collective
    nodes: 1.5
`,
      `
suite.yaml:5:12: "nodes" must be a positive integer, got 1.5
      nodes: 1.5
             ^
`,
    ],
    [
      "negative GPU count",
      `
name: s
tests:
  - name: a
    kind: collective
    gpusPerNode: -1
`,
      `
suite.yaml:5:18: "gpusPerNode" must be a non-negative integer, got -1
      gpusPerNode: -1
                   ^
`,
    ],
    [
      "suite that is a list",
      `
- name: s
`,
      `
suite.yaml:1:1: a suite must be a map with keys such as "name" and "tests", got a list
  - name: s
  ^
`,
    ],
    [
      "suite that is a scalar",
      `
hello
`,
      `
suite.yaml:1:1: a suite must be a map with keys such as "name" and "tests", got "hello"
  hello
  ^
`,
    ],
    [
      "tests that is a map",
      `
name: s
tests: { a: 1 }
`,
      `
suite.yaml:2:8: "tests" must be a list of tests, not a map: write each test as "- name: a" with its fields under it (a test with the name of one in the suite it extends changes only the fields it gives)
  tests: { a: 1 }
         ^
`,
    ],
    [
      "tests that is a text",
      `
name: s
tests: all of them
`,
      `
suite.yaml:2:8: "tests" must be a list of tests
  tests: all of them
         ^
`,
    ],
    [
      "empty test list",
      `
name: s
tests: []
`,
      `
suite.yaml:2:8: "tests" must list at least one test
  tests: []
         ^
`,
    ],
    [
      "test that is a scalar",
      `
name: s
tests:
  - inventory
`,
      `
suite.yaml:3:5: item 1 of "tests" must be a map with at least "name" and "kind", got "inventory"
    - inventory
      ^
`,
    ],
    [
      "invalid suite name",
      `
name: My Suite
tests:
  - { name: inv, kind: inventory }
`,
      `
suite.yaml:1:7: invalid suite name "My Suite": expected lower-case letters, digits and '-', starting with a letter or digit
  name: My Suite
        ^
`,
    ],
    [
      "invalid test name",
      `
name: s
tests:
  - name: my test
    kind: inventory
`,
      `
suite.yaml:3:11: invalid test name "my test": expected letters, digits, '.', '_' and '-', starting with a letter or digit
    - name: my test
            ^
`,
    ],
    [
      "kind with a close match",
      `
name: s
tests:
  - name: a
    kind: colective
`,
      `
suite.yaml:4:11: invalid kind "colective": did you mean "collective"?
      kind: colective
            ^
`,
    ],
    [
      "collective op with no close match",
      `
name: s
tests:
  - name: a
    kind: collective
    collective: { op: bogus }
`,
      `
suite.yaml:5:23: invalid op "bogus": expected one of all_reduce, all_gather, reduce_scatter, alltoall, broadcast
      collective: { op: bogus }
                        ^
`,
    ],
  ]);
});
