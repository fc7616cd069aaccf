// The dcgm block's bad values: exactly what `gpucheck validate` prints for each (exit 2).
import { describe } from "bun:test";
import { rejects } from "../load/_load.ts";

const suite = (block: string) => `
name: s
tests:
  - name: a
    kind: dcgm
    dcgm: ${block}
`;

describe("dcgm block", () => {
  rejects([
    [
      "a level DCGM does not have",
      suite("{ level: 5 }"),
      `
suite.yaml:5:20: "level" must be a DCGM diagnostic level: 1, 2, 3 or 4
      dcgm: { level: 5 }
                     ^
`,
    ],
    [
      "a level written as text",
      suite("{ level: long }"),
      `
suite.yaml:5:20: "level" must be a DCGM diagnostic level: 1, 2, 3 or 4
      dcgm: { level: long }
                     ^
`,
    ],
    [
      "an unknown key",
      suite("{ levl: 3 }"),
      `
suite.yaml:5:13: unknown key "levl": did you mean "level"?
      dcgm: { levl: 3 }
              ^
`,
    ],
  ]);
});
