// test/report/write.test.ts's first test as it was, with the files other tools read checked against
// their published schemas (CTRF's, CycloneDX 1.6's) by python3-jsonschema, which the unit tier lacks.
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { writeRunFiles } from "../../../lib/report/write.ts";
import { FIXTURES } from "../../fixtures/results/fixtures.ts";
import { assertCdxValid, assertCtrfValid } from "../../report/ecosystem-validators.ts";
import { assertResultsValid } from "../../report/json-schema.ts";
import { assertJunitValid } from "../../report/xsd.ts";
import { tempDir } from "../../tmp.ts";

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
    assertCtrfValid(join(dir, "ctrf.json"));
    assertCdxValid(join(dir, "inventory.cdx.json"));
    expect(readFileSync(join(dir, "metrics.prom"), "utf8")).toContain('gpucheck_run_passed{suite="h100-8x",cluster="acme-h100-a"} 0\n');
    expect(readFileSync(join(dir, "junit.xml"), "utf8")).toContain('tests="1"');
    writeRunFiles(dir, r);
    assertResultsValid(join(dir, "results.json"));
    assertJunitValid(join(dir, "junit.xml"));
    expect(readFileSync(join(dir, "junit.xml"), "utf8")).toContain('tests="2"');
    expect(JSON.parse(readFileSync(join(dir, "ctrf.json"), "utf8")).results.summary.tests).toBe(2);
    expect(readdirSync(dir).sort()).toEqual(RUN_FILES);
  });
});
