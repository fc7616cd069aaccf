// The membw block's bad values: exactly what `gpucheck validate` prints for each (exit 2).
import { describe } from "bun:test";
import { rejects } from "../load/_load.ts";

const suite = (block: string) => `
name: s
tests:
  - name: a
    kind: membw
    membw: ${block}
`;

describe("membw block", () => {
  rejects([
    [
      "a size that is not a size",
      suite("{ size: lots }"),
      `
suite.yaml:5:20: invalid size "lots": expected a number of bytes or a number with B, KiB, MiB, GiB, TiB (binary, also K, M, G, T) or KB, MB, GB, TB (decimal)
      membw: { size: lots }
                     ^
`,
    ],
    [
      "a size of zero",
      suite("{ size: 0 }"),
      `
suite.yaml:5:20: "size" must be a positive size, got 0
      membw: { size: 0 }
                     ^
`,
    ],
    [
      "a size smaller than one element",
      suite("{ size: 3B }"),
      `
suite.yaml:5:20: "size" must be at least 4B (one float32), got 3B
      membw: { size: 3B }
                     ^
`,
    ],
    [
      "zero timed calls",
      suite("{ iters: 0 }"),
      `
suite.yaml:5:21: "iters" must be a positive integer, got 0
      membw: { iters: 0 }
                      ^
`,
    ],
    [
      "a negative warm-up",
      suite("{ warmup: -1 }"),
      `
suite.yaml:5:22: "warmup" must be a non-negative integer, got -1
      membw: { warmup: -1 }
                       ^
`,
    ],
    [
      "a key membw does not have",
      suite("{ sise: 1GiB }"),
      `
suite.yaml:5:14: unknown key "sise": did you mean "size"?
      membw: { sise: 1GiB }
               ^
`,
    ],
  ]);
});
