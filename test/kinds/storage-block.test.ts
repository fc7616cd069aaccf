// The storage block's bad values: exactly what `gpucheck validate` prints for each (exit 2).
import { describe } from "bun:test";
import { rejects } from "../load/_load.ts";

const suite = (block: string) => `
name: s
tests:
  - name: a
    kind: storage
    storage: ${block}
`;

describe("storage block", () => {
  rejects([
    [
      "neither path",
      suite("{ size: 1GiB }"),
      `
suite.yaml:5:14: a storage test needs "local" (the node's NVMe scratch path) or "shared" (the shared filesystem path), or both
      storage: { size: 1GiB }
               ^
`,
    ],
    [
      "a misspelt key",
      suite("{ lcoal: /raid/scratch }"),
      `
suite.yaml:5:16: unknown key "lcoal": did you mean "local"?
      storage: { lcoal: /raid/scratch }
                 ^
`,
    ],
  ]);
});
