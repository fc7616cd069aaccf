import { describe, expect, test } from "bun:test";
import { mkdirSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { writeFileAtomic } from "../../lib/report/results.ts";
import { writeFinalFiles, writeReports, writeRunFiles } from "../../lib/report/write.ts";
import { FIXTURES } from "../fixtures/results/fixtures.ts";
import { assertResultsValid } from "./results-check.ts";
import { assertJunitValid } from "./junit-check.ts";
import { tempDir } from "../tmp.ts";

const tmp = () => tempDir("gpucheck-write-");
/** what every write leaves: results.json, junit.xml and the outputs other tools read */
const RUN_FILES = ["ctrf.json", "inventory.cdx.json", "junit.xml", "metrics.prom", "results.json"];

describe("results directory files", () => {
  test("after every test: results.json, junit.xml and the outputs beside it, all valid, nothing else, no temporary files left", () => {
    const dir = join(tmp(), "run");
    const r = FIXTURES["error-killed"]();
    // as the executor does: after the first test, then after the second
    writeRunFiles(dir, { ...r, tests: r.tests.slice(0, 1), complete: false, endedAt: null });
    expect(readdirSync(dir).sort()).toEqual(RUN_FILES);
    assertJunitValid(join(dir, "junit.xml"));
    // ctrf.json and inventory.cdx.json against their published schemas: test/integration/report/write-schemas.test.ts
    expect(readFileSync(join(dir, "metrics.prom"), "utf8")).toContain('gpucheck_run_passed{suite="h100-8x",cluster="acme-h100-a"} 0\n');
    expect(readFileSync(join(dir, "junit.xml"), "utf8")).toContain('tests="1"');
    writeRunFiles(dir, r);
    assertResultsValid(join(dir, "results.json"));
    assertJunitValid(join(dir, "junit.xml"));
    expect(readFileSync(join(dir, "junit.xml"), "utf8")).toContain('tests="2"');
    expect(JSON.parse(readFileSync(join(dir, "ctrf.json"), "utf8")).results.summary.tests).toBe(2);
    expect(readdirSync(dir).sort()).toEqual(RUN_FILES);
  });

  test("at the end: report.html and summary.txt too", () => {
    const dir = tmp();
    writeFinalFiles(dir, FIXTURES.passing());
    expect(readdirSync(dir).sort()).toEqual([...RUN_FILES, "report.html", "summary.txt"].sort());
    expect(readFileSync(join(dir, "summary.txt"), "utf8")).not.toContain("\x1b");
  });

  test("`gpucheck report` (writeReports) rewrites ctrf.json, inventory.cdx.json and metrics.prom byte for byte: a signature over them stays good", () => {
    const dir = tmp();
    const r = FIXTURES.passing();
    writeFinalFiles(dir, r);
    const names = ["ctrf.json", "inventory.cdx.json", "metrics.prom"];
    const before = names.map((n) => readFileSync(join(dir, n), "utf8"));
    writeReports(dir, JSON.parse(JSON.stringify(r)));
    expect(names.map((n) => readFileSync(join(dir, n), "utf8"))).toEqual(before);
  });

  test("an atomic write replaces the file whole, and a failed one leaves no temporary file", () => {
    const dir = tmp();
    writeFileAtomic(join(dir, "a.json"), "one");
    writeFileAtomic(join(dir, "a.json"), "two");
    expect(readFileSync(join(dir, "a.json"), "utf8")).toBe("two");
    mkdirSync(join(dir, "taken"));
    mkdirSync(join(dir, "taken", "x"));
    expect(() => writeFileAtomic(join(dir, "taken"), "three")).toThrow();
    expect(readdirSync(dir).sort()).toEqual(["a.json", "taken"]);
  });
});

describe("serialiseResults", () => {
  test("reads back to the same data, with data arrays on one line and structure indented", async () => {
    const { serialiseResults } = await import("../../lib/report/results.ts");
    for (const build of Object.values(FIXTURES)) {
      const r = build();
      const text = serialiseResults(r);
      expect(JSON.parse(text)).toEqual(JSON.parse(JSON.stringify(r)));
    }
    const text = serialiseResults(FIXTURES.passing());
    expect(text).toContain('\n              "busbw": [[8,0.01],[16,0.01],');
    expect(text).toContain('"util_pct": [{"x":0,"y":0},{"x":0.5,"y":25.21},');
    expect(text).toContain('\n  "tests": [\n    {\n      "name": "nvlink-allreduce",\n');
    expect(text.endsWith("}\n")).toBe(true);
  });
});
