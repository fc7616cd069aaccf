// docs/reference/ and the floors table of docs/thresholds.md are generated from the code by
// scripts/gen-docs.ts: a command, flag, exit code, output file, preflight message or suite threshold
// changed without regenerating them fails here. (docs/reference/kinds.md: test/kinds/reference.test.ts.)
import { expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { COMMANDS } from "../../cli/table.ts";
import { REGENERATE } from "../../lib/kinds/reference.ts";
import { cliPage, floorsTable, referencePages } from "../../scripts/gen-docs.ts";

const root = join(import.meta.dir, "..", "..");

for (const [path, text] of Object.entries(referencePages())) {
  test(`${path} is up to date with the code`, () => {
    const committed = existsSync(join(root, path)) ? readFileSync(join(root, path), "utf8") : "";
    if (committed !== text) throw new Error(`${path} is stale: run \`${REGENERATE}\` and commit the result`);
  });
}

test("the CLI reference names every command and every flag of the command table", () => {
  const page = cliPage();
  for (const c of COMMANDS) {
    expect(page).toContain(`## gpucheck ${c.name}\n`);
    for (const o of c.options ?? []) expect(page).toContain(`| \`${o.flags}\` |`);
    for (const s of c.subcommands ?? []) expect(page).toContain(`## gpucheck ${c.name} ${s.name}\n`);
  }
});

test("the floors table carries each threshold with the comment its suite wrote for it", () => {
  const table = floorsTable();
  // h100-8x's NVLS floor and the Azure health check it comes from (suites/h100-8x.yaml)
  expect(table).toMatch(/^\| h100-8x \| nvlink-allreduce \| `busbw` \| `\{ min: 460 GB\/s \}` \| .*Azure's health check floor/m);
  // a threshold with only a comment beside it
  expect(table).toContain("| cpu-smoke | allreduce-gloo | `wrong` | `{ max: 0 }` | nccl-tests data check: a wrong value is silent corruption |");
});
