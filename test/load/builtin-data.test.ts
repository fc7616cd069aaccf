// The built-in suites' data read at build time (lib/load/builtin-data.gen.ts) must be what the suites
// say now, and the loader must give the same suite with it as without it. When the first fails,
// regenerate with `bun run scripts/gen-suite-data.ts` (the build does it too) and commit the file.
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { BUILTIN_DATA_GEN, renderSuiteData } from "../../scripts/gen-suite-data.ts";
import { BUILTIN_DATA } from "../../lib/load/builtin-data.gen.ts";
import { builtinSuites } from "../../lib/core/assets.ts";
import { openSuite } from "../../lib/load/read.ts";

test("lib/load/builtin-data.gen.ts is what the built-in suites say now", () => {
  expect(readFileSync(BUILTIN_DATA_GEN, "utf8")).toBe(renderSuiteData());
});

test("every built-in suite has its data, equal to Bun.YAML.parse of its text", () => {
  for (const [name, b] of builtinSuites()) {
    const opened = openSuite(name, "/");
    if (!opened.ok) throw new Error(opened.reason);
    expect(opened.file.json).toBe(BUILTIN_DATA[`${name}.yaml`]!.json);
    expect(opened.file.plain).toBe(true);
    expect(JSON.parse(opened.file.json!)).toEqual(Bun.YAML.parse(b.text) as object);
  }
});

test("a stale entry (another text's hash) is ignored: the suite is read from its text, to the same result", async () => {
  const { loadSuiteWarnings } = await import("../../lib/load/mod.ts");
  const entry = BUILTIN_DATA["h100-multinode.yaml"]!;
  const withData = await loadSuiteWarnings("h100-multinode");
  BUILTIN_DATA["h100-multinode.yaml"] = { ...entry, sha256: "0".repeat(64) };
  try {
    const opened = openSuite("h100-multinode", "/");
    expect(opened.ok && opened.file.json).toBeUndefined();
    expect(await loadSuiteWarnings("h100-multinode")).toEqual(withData);
  } finally {
    BUILTIN_DATA["h100-multinode.yaml"] = entry;
  }
});
