import { describe, expect, test } from "bun:test";
import { mkdirSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { writeFileAtomic } from "../../lib/report/results.ts";
import { writeFinalFiles, writeRunFiles } from "../../lib/report/write.ts";
import { FIXTURES } from "../fixtures/results/fixtures.ts";
import { assertResultsValid } from "./json-schema.ts";
import { assertJunitValid } from "./xsd.ts";
import { tempDir } from "../tmp.ts";

const tmp = () => tempDir("gpucheck-write-");

describe("results directory files", () => {
  test("after every test: results.json and junit.xml, both valid, nothing else, no temporary files left", () => {
    const dir = join(tmp(), "run");
    const r = FIXTURES["error-killed"]();
    // as the executor does: after the first test, then after the second
    writeRunFiles(dir, { ...r, tests: r.tests.slice(0, 1), complete: false, endedAt: null });
    expect(readdirSync(dir).sort()).toEqual(["junit.xml", "results.json"]);
    assertJunitValid(join(dir, "junit.xml"));
    expect(readFileSync(join(dir, "junit.xml"), "utf8")).toContain('tests="1"');
    writeRunFiles(dir, r);
    assertResultsValid(join(dir, "results.json"));
    assertJunitValid(join(dir, "junit.xml"));
    expect(readFileSync(join(dir, "junit.xml"), "utf8")).toContain('tests="2"');
    expect(readdirSync(dir).sort()).toEqual(["junit.xml", "results.json"]);
  });

  test("at the end: report.html and summary.txt too", () => {
    const dir = tmp();
    writeFinalFiles(dir, FIXTURES.passing());
    expect(readdirSync(dir).sort()).toEqual(["junit.xml", "report.html", "results.json", "summary.txt"]);
    expect(readFileSync(join(dir, "summary.txt"), "utf8")).not.toContain("\x1b");
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
