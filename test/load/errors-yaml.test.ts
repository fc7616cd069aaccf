// YAML syntax errors, reported in the same positioned format.
// Each case: a suite, and exactly what `gpucheck validate` prints for it (exit 2).
import { describe } from "bun:test";
import { rejects } from "./_load.ts";

describe("yaml", () => {
  rejects([
    [
      "item indented too little",
      `
name: s
tests:
  - name: a
   kind: inventory
`,
      `
suite.yaml:4:1: invalid YAML: sequence item without - indicator
     kind: inventory
  ^
`,
    ],
    [
      "duplicate key in a test",
      `
name: s
tests:
  - name: a
    kind: inventory
    nodes: 1
    nodes: 2
`,
      `
suite.yaml:6:5: duplicate key "nodes": first defined at line 5
      nodes: 2
      ^
`,
    ],
    [
      "unclosed quote points at where it opens",
      `
name: "s
tests: []
`,
      `
suite.yaml:1:7: invalid YAML: missing closing "quote
  name: "s
        ^
`,
    ],
    [
      "unclosed bracket points at where it opens",
      `
name: s
tests: [ { name: a, kind: inventory }
`,
      `
suite.yaml:2:8: invalid YAML: flow sequence in block collection must be sufficiently indented and end with a ]
  tests: [ { name: a, kind: inventory }
         ^
`,
    ],
    [
      "tab indentation",
      `
name: s
tests:
\t- name: a
`,
      `
suite.yaml:3:1: tabs are not allowed as indentation: use spaces
   - name: a
  ^
`,
    ],
    [
      "two documents",
      `
name: s
tests: []
---
name: t
`,
      `
suite.yaml:3:1: a suite file holds one YAML document: remove the "---" that starts a second one
  ---
  ^
`,
    ],
    [
      "unknown alias",
      `
name: s
tests:
  - *inv
`,
      `
suite.yaml:3:5: unknown alias "*inv": define the anchor "&inv" before using it
    - *inv
      ^
`,
    ],
    [
      "tag",
      `
name: !secret s
tests: []
`,
      `
suite.yaml:1:7: unresolved tag "!secret": suites use plain YAML without tags
  name: !secret s
        ^
`,
    ],
    [
      "nested mapping on one line",
      `
name: s
tests:
  - name: a kind: inventory
`,
      `
suite.yaml:3:11: invalid YAML: nested mappings are not allowed in compact mappings
    - name: a kind: inventory
            ^
`,
    ],
    [
      "a value from a merge key is found where it is written",
      `
name: s
tests:
  - name: a
    kind: inventory
    <<: { nodes: two }
`,
      `
suite.yaml:5:18: "nodes" must be a positive integer, got "two"
      <<: { nodes: two }
                   ^
`,
    ],
  ]);
});
