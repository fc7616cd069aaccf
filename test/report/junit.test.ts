import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { renderJunit } from "../../lib/report/junit.ts";
import type { ResultsFile } from "../../lib/core/types.ts";
import { FIXTURES } from "../fixtures/results/fixtures.ts";
import { blankTimestamps, expectGolden } from "./golden.ts";
import { assertJunitTextValid, assertJunitValid, assertJunitXmlValid } from "./junit-check.ts";
import { JUNIT_REFUSED } from "./junit-refused.ts";
import { tempDir } from "../tmp.ts";

const GOLDEN = resolve(import.meta.dir, "../golden/junit");

describe("golden JUnit files", () => {
  for (const [name, build] of Object.entries(FIXTURES)) {
    test(`${name}: matches test/golden/junit/${name}.xml and validates against junit-10.xsd`, () => {
      const xml = renderJunit(build());
      expectGolden(join(GOLDEN, `${name}.xml`), blankTimestamps(xml));
      assertJunitTextValid(xml, `${name}.xml`);
    });
  }

  test("every golden file validates (also ones no fixture writes any more)", () => {
    const files = readdirSync(GOLDEN).filter((f) => f.endsWith(".xml"));
    expect(files.length).toBeGreaterThanOrEqual(Object.keys(FIXTURES).length);
    for (const f of files) assertJunitValid(join(GOLDEN, f));
  });
});

describe("what the in-process check refuses (test/integration/report/validators.test.ts shows xmllint agrees)", () => {
  test("an interrupted run, and a run with no finished test, are still valid JUnit", () => {
    const r: ResultsFile = { ...FIXTURES.passing(), complete: false, endedAt: null };
    const root = assertJunitTextValid(renderJunit(r));
    expect(root.children[0]?.children.find((c) => c.name === "system-out")?.text).toBe("the run is still going or was killed: 3 of 3 tests started");
    assertJunitTextValid(renderJunit({ ...r, tests: [] }));
  });

  test("a broken file is named with its problem, and so are wrong counts", () => {
    const dir = tempDir("gpucheck-junit-");
    writeFileSync(join(dir, "bad.xml"), `<testsuite name="x" tests="1" failures="0" errors="0" time="1,5.5"><testcase name="a"/></testsuite>`);
    expect(() => assertJunitValid(join(dir, "bad.xml"))).toThrow(
      `${join(dir, "bad.xml")} does not validate against junit-10.xsd:\n${join(dir, "bad.xml")}: /testsuite: time="1,5.5" is not a SUREFIRE_TIME`,
    );
    writeFileSync(join(dir, "count.xml"), `<testsuite name="x" tests="2" failures="0" errors="0"><testcase name="a"/></testsuite>`);
    expect(() => assertJunitValid(join(dir, "count.xml"))).toThrow(`${join(dir, "count.xml")}: testsuite 1 says tests="2" but has 1`);
    expect(readFileSync(join(dir, "count.xml"), "utf8")).toContain("testsuite");
  });

  for (const [what, xml, message] of JUNIT_REFUSED) {
    test(what, () => {
      expect(() => assertJunitXmlValid(xml, "t.xml")).toThrow(message);
    });
  }
});

test("a tail of nothing but protocol lines is shown as it is, rather than not at all", () => {
  const r = FIXTURES["hostile-tail"]();
  r.tests[0].units[0].tail = '[rank 0] GPUCHECK_INVENTORY {"hostname":"vm","gpus":[]}';
  expect(renderJunit(r)).toContain('--- last lines of the log (telemetry and progress lines only in the full logs) ---\n[rank 0] GPUCHECK_INVENTORY {"hostname":"vm","gpus":[]}\n');
});
