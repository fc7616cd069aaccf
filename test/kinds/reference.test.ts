// docs/reference/kinds.md (the reference of kinds) and the workload contract schemas are generated from the registry:
// a kind, key or metric added in lib/kinds/ without regenerating them fails here.
import { expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { generatedFiles, kindsReference, REGENERATE } from "../../lib/kinds/reference.ts";
import { KINDS } from "../../lib/kinds/mod.ts";

const root = join(import.meta.dir, "..", "..");
for (const [path, text] of Object.entries(generatedFiles())) {
  test(`${path} is up to date with lib/kinds/`, () => {
    const committed = existsSync(join(root, path)) ? readFileSync(join(root, path), "utf8") : "";
    if (committed !== text) throw new Error(`${path} is stale: run \`${REGENERATE}\` and commit the result`);
  });
}

test("the reference names every kind, every key of its block and every metric", () => {
  const ref = kindsReference();
  for (const k of Object.values(KINDS)) {
    expect(ref).toContain(`### kind: ${k.name}`);
    for (const key of k.keys) expect(ref).toContain(`| \`${key.key}\` |`);
    for (const m of Object.keys(k.metrics)) expect(ref).toContain(`| \`${m}\` |`);
  }
});

test("each kind documents exactly the keys its block accepts", () => {
  for (const k of Object.values(KINDS)) {
    const r = k.block.safeParse({ "no-such-key": 1 });
    // strictMap lists its keys in the unknown-key message: "known keys: a b c"
    const known = r.success ? [] : r.error.issues[0]!.message.split(" ").slice(2);
    expect(k.keys.map((x) => x.key)).toEqual(known);
  }
});
