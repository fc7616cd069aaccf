// `gpucheck list` prints text the build rendered (cli/commands/list.gen.ts): it must be what the
// built-in suites and the kind and platform registries say now. When this fails, regenerate with
// `bun run scripts/gen-list.ts` (the build does it too) and commit the file.
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { LIST_GEN, renderListModule } from "../../scripts/gen-list.ts";

test("cli/commands/list.gen.ts is what the suites and the registries render now", async () => {
  expect(readFileSync(LIST_GEN, "utf8")).toBe(await renderListModule());
});
