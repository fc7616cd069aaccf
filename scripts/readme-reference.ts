// Regenerates what the test-kind registry (lib/kinds/) describes: the README's reference of kinds,
// their keys and metrics, and schema/workload-<kind>.schema.json, the contract of each kind's
// workload result. test/kinds/reference.test.ts fails when a committed copy is stale.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { generatedFiles } from "../lib/kinds/reference.ts";

const root = join(import.meta.dir, "..");
const files = generatedFiles(readFileSync(join(root, "README.md"), "utf8"));
for (const [path, text] of Object.entries(files)) {
  let old = "";
  try {
    old = readFileSync(join(root, path), "utf8");
  } catch {}
  if (old === text) continue;
  writeFileSync(join(root, path), text);
  console.log(`wrote ${path}`);
}
