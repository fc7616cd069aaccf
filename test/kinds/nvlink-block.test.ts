// The nvlink block's bad values: exactly what `gpucheck validate` prints for each (exit 2).
import { describe } from "bun:test";
import { rejects } from "../load/_load.ts";

const suite = (block: string, extra = "") => `
name: s
tests:
  - name: a
    kind: nvlink
    nvlink: ${block}${extra}
`;

describe("nvlink block", () => {
  rejects([
    [
      "a size of zero",
      suite("{ size: 0 }"),
      `
suite.yaml:5:21: "size" must be a positive size, got 0
      nvlink: { size: 0 }
                      ^
`,
    ],
    [
      "zero timed messages",
      suite("{ iters: 0 }"),
      `
suite.yaml:5:22: "iters" must be a positive integer, got 0
      nvlink: { iters: 0 }
                       ^
`,
    ],
    [
      "a key nvlink does not have",
      suite("{ sise: 1GiB }"),
      `
suite.yaml:5:15: unknown key "sise": did you mean "size"?
      nvlink: { sise: 1GiB }
                ^
`,
    ],
    [
      "one GPU per node: no pair to measure",
      suite("{}", "\n    gpusPerNode: 1"),
      `
suite.yaml:4:11: kind "nvlink" measures links between GPUs of one node: "gpusPerNode" is 1, so there is no pair to measure
      kind: nvlink
            ^
`,
    ],
  ]);
});
