// The pcie block's bad values: exactly what `gpucheck validate` prints for each (exit 2).
import { describe } from "bun:test";
import { rejects } from "../load/_load.ts";

const suite = (block: string) => `
name: s
tests:
  - name: a
    kind: pcie
    pcie: ${block}
`;

describe("pcie block", () => {
  rejects([
    [
      "a size that is not a size",
      suite("{ size: lots }"),
      `
suite.yaml:5:19: invalid size "lots": expected a number of bytes or a number with B, KiB, MiB, GiB, TiB (binary, also K, M, G, T) or KB, MB, GB, TB (decimal)
      pcie: { size: lots }
                    ^
`,
    ],
    [
      "a size of zero",
      suite("{ size: 0 }"),
      `
suite.yaml:5:19: "size" must be a positive size, got 0
      pcie: { size: 0 }
                    ^
`,
    ],
    [
      "zero timed calls",
      suite("{ iters: 0 }"),
      `
suite.yaml:5:20: "iters" must be a positive integer, got 0
      pcie: { iters: 0 }
                     ^
`,
    ],
    [
      "a negative warm-up",
      suite("{ warmup: -1 }"),
      `
suite.yaml:5:21: "warmup" must be a non-negative integer, got -1
      pcie: { warmup: -1 }
                      ^
`,
    ],
    [
      "a key pcie does not have",
      suite("{ sise: 1GiB }"),
      `
suite.yaml:5:13: unknown key "sise": did you mean "size"?
      pcie: { sise: 1GiB }
              ^
`,
    ],
  ]);
});
