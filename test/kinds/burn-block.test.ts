// The burn block's bad values: exactly what `gpucheck validate` prints for each (exit 2).
import { describe } from "bun:test";
import { rejects } from "../load/_load.ts";

const suite = (block: string) => `
name: s
tests:
  - name: a
    kind: burn
    burn: ${block}
`;

describe("burn block", () => {
  rejects([
    [
      "a duration that is not a duration",
      suite("{ duration: forever }"),
      `
suite.yaml:5:23: invalid duration "forever": expected a number with ms, s, m or h (e.g. 90s, 10m, 1h30m); a plain number is seconds
      burn: { duration: forever }
                        ^
`,
    ],
    [
      "a duration of zero",
      suite("{ duration: 0s }"),
      `
suite.yaml:5:23: "duration" must be a positive duration, got "0s"
      burn: { duration: 0s }
                        ^
`,
    ],
    [
      "a copy smaller than one element",
      suite("{ copySize: 2B }"),
      `
suite.yaml:5:23: "copySize" must be at least 4B (one float32), got 2B
      burn: { copySize: 2B }
                        ^
`,
    ],
    [
      "an all-reduce smaller than one element",
      suite("{ allreduceSize: 1B }"),
      `
suite.yaml:5:28: "allreduceSize" must be at least 4B (one float32), got 1B
      burn: { allreduceSize: 1B }
                             ^
`,
    ],
    [
      "a multiply of no size",
      suite("{ gemmSize: 0 }"),
      `
suite.yaml:5:23: "gemmSize" must be a positive integer, got 0
      burn: { gemmSize: 0 }
                        ^
`,
    ],
    [
      "a window longer than the run",
      suite("{ duration: 30s, window: 1m }"),
      `
suite.yaml:5:36: "window" (60s) must not exceed "duration" (30s)
      burn: { duration: 30s, window: 1m }
                                     ^
`,
    ],
    [
      "a key burn does not have",
      suite("{ durration: 1m }"),
      `
suite.yaml:5:13: unknown key "durration": did you mean "duration"?
      burn: { durration: 1m }
              ^
`,
    ],
  ]);
});
