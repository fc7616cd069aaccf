// docs/troubleshooting.md says what to do for every problem the preflight reports: a message added
// to lib/preflight/ without a row there fails here.
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { preflightMessages } from "../../scripts/gen-docs.ts";

const page = readFileSync(join(import.meta.dir, "..", "..", "docs", "troubleshooting.md"), "utf8");

test("the preflight's messages are found in lib/preflight/", () => {
  const texts = preflightMessages().map((m) => m.text);
  expect(texts).toContain("preflight could not run: {why}{hint}");
  expect(texts).toContain("preflight failed on {node}: {why}");
  expect(texts.length).toBeGreaterThanOrEqual(8);
});

for (const m of preflightMessages()) {
  test(`docs/troubleshooting.md has a row for ${m.file}:${m.line}`, () => {
    if (!page.includes(`| \`${m.text.replaceAll("|", "\\|")}\` |`)) {
      throw new Error(`docs/troubleshooting.md has no row for the preflight message \`${m.text}\` (${m.file}:${m.line}): add one saying what to do`);
    }
  });
}
