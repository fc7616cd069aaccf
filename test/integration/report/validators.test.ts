// The unit tier checks junit.xml and results.json in-process (test/report/junit-check.ts,
// test/report/results-check.ts) so that it needs no Debian package. This file holds them to the
// real validators: xmllint (libxml2-utils) against junit-10.xsd, and Python's jsonschema against
// schema/results.schema.json. Both must accept every golden file and fixture the unit tier accepts,
// and refuse every document the in-process checks refuse, with their own messages. Also here: what
// a JUnit consumer reads out of gpucheck's XML after parsing (xmllint's XPath). No daemon, ~2 s.
import { describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { renderJunit } from "../../../lib/report/junit.ts";
import { parseResults } from "../../../lib/report/results.ts";
import type { ResultsFile } from "../../../lib/core/types.ts";
import { FIXTURES } from "../../fixtures/results/fixtures.ts";
import { assertJunitXmlValid } from "../../report/junit-check.ts";
import { JUNIT_REFUSED } from "../../report/junit-refused.ts";
import { RESULTS_INVALID } from "../../report/results-invalid.ts";
import { assertResultsValid, resultsSchemaErrors } from "../../report/json-schema.ts";
import { assertJunitTextValid, assertJunitValid } from "../../report/xsd.ts";
import { tempDir } from "../../tmp.ts";

const GOLDEN = resolve(import.meta.dir, "../../golden/junit");
const RESULTS_FIXTURES = resolve(import.meta.dir, "../../fixtures/results");

/** xmllint's reading of the file: what a consumer gets out of it, after parsing. */
function xpath(xml: string, expr: string): string {
  const dir = tempDir("gpucheck-junit-");
  const path = join(dir, "junit.xml");
  writeFileSync(path, xml);
  // xmllint ends its answer with a newline of its own
  return spawnSync("xmllint", ["--xpath", expr, path], { encoding: "utf8" }).stdout.replace(/\n$/, "");
}

describe("xmllint agrees with the in-process junit check", () => {
  test("every golden file and every fixture's junit.xml: valid for both", () => {
    const files = readdirSync(GOLDEN).filter((f) => f.endsWith(".xml"));
    expect(files.length).toBeGreaterThanOrEqual(Object.keys(FIXTURES).length);
    for (const f of files) assertJunitValid(join(GOLDEN, f));
    for (const [name, build] of Object.entries(FIXTURES)) {
      const xml = renderJunit(build());
      assertJunitTextValid(xml, `${name}.xml`);
      assertJunitXmlValid(xml, `${name}.xml`);
    }
  });

  test("xmllint refuses every document the in-process check refuses", () => {
    const dir = tempDir("gpucheck-junit-");
    const accepted: string[] = [];
    for (const [what, xml] of JUNIT_REFUSED) {
      const path = join(dir, "t.xml");
      writeFileSync(path, xml);
      const r = spawnSync("xmllint", ["--noout", "--schema", resolve(import.meta.dir, "../../fixtures/junit/junit-10.xsd"), path], { encoding: "utf8" });
      if (r.error) throw new Error(`xmllint could not run (install Debian's libxml2-utils): ${r.error.message}`);
      if (r.status === 0) accepted.push(what);
    }
    expect(accepted).toEqual([]);
  });
});

describe("what Jenkins gets", () => {
  test("an impossible threshold: a failure naming the metric and both values", () => {
    const xml = renderJunit(FIXTURES["failing-threshold"]());
    expect(xpath(xml, "string(//testcase/failure/@message)")).toBe("busbw 477.2 GB/s at 8 GiB < 100000 GB/s expected (-100%)");
    expect(xpath(xml, "string(//testcase/failure/@type)")).toBe("threshold");
  });

  test("a killed workload: an error testcase holding the log tail", () => {
    const xml = renderJunit(FIXTURES["error-killed"]());
    expect(xpath(xml, "count(//testcase[error])")).toBe("2");
    expect(xpath(xml, "string(//testcase[@name='nvlink-allreduce']/error/@type)")).toBe("crashed");
    const out = xpath(xml, "string(//testcase[@name='nvlink-allreduce']/system-out)");
    expect(out).toContain("[rank 3] Killed\n[rank 0] gpu-01: Test NCCL failure common.cu:1279");
    expect(out).toContain("logs: logs/nvlink-allreduce/all/ (8 files: rank-0.log … rank-7.log)");
    expect(xpath(xml, "string(//testcase[@name='resnet18-fashionmnist']/error/@type)")).toBe("timeout");
    // telemetry and progress lines stay in the logs, not in Jenkins' stdout
    expect(FIXTURES["error-killed"]().tests[0].units[0].tail).toContain("GPUCHECK_TELEMETRY");
    expect(out).not.toContain("GPUCHECK_");
  });

  test("per node: one testcase per node, named '<test> [<node>]', the slow node failing, the drained one skipped", () => {
    const xml = renderJunit(FIXTURES["per-node"]());
    expect(xpath(xml, "count(//testcase)")).toBe("8");
    expect(xpath(xml, "string(//testcase[failure]/@name)")).toBe("nvlink-allreduce [gpu-03]");
    expect(xpath(xml, "string(//testcase[skipped]/@name)")).toBe("ib-allreduce [gpu-04]");
    expect(xpath(xml, "string(//testcase[skipped]/skipped/@message)")).toBe('node gpu-04 is drained: reason="bad HCA"');
    expect(xpath(xml, "string(//testsuite/@failures)")).toBe("1");
    expect(xpath(xml, "string(//testsuite/@skipped)")).toBe("1");
  });

  test("classname gpucheck.<suite>.<kind>, with dots in names replaced so Jenkins' tree stays three levels", () => {
    const r = FIXTURES.passing();
    expect(xpath(renderJunit(r), "string(//testcase[1]/@classname)")).toBe("gpucheck.h100-8x.collective");
    r.suite.name = "acme.h100";
    expect(xpath(renderJunit(r), "string(//testcase[1]/@classname)")).toBe("gpucheck.acme_h100.collective");
  });

  test("properties: cluster, platform, version, suite path and sha256", () => {
    const xml = renderJunit(FIXTURES.passing());
    const prop = (n: string) => xpath(xml, `string(//property[@name='${n}']/@value)`);
    expect([prop("cluster"), prop("platform"), prop("gpucheck.version"), prop("suite.path"), prop("suite.sha256")]).toEqual([
      "acme-h100-a",
      "ssh",
      "0.1.0",
      "suites/h100-8x.yaml",
      "3f2a8c0e5b7d9f1a2c4e6b8d0f1a3c5e7b9d1f3a5c7e9b1d3f5a7c9e1b3d5f70",
    ]);
  });

  test("times in seconds with 3 decimals, timestamp ISO-8601 UTC without fraction", () => {
    const xml = renderJunit(FIXTURES["error-killed"]());
    expect(xpath(xml, "string(//testcase[2]/@time)")).toBe("600.000");
    expect(xpath(xml, "string(//testsuite/@time)")).toBe("616.000");
    expect(xpath(xml, "string(//testsuite/@timestamp)")).toBe("2025-03-04T05:06:07");
  });

  test("colour codes, NUL and ]]> in a log: the file parses and the text survives cleaned", () => {
    const xml = renderJunit(FIXTURES["hostile-tail"]());
    expect(xml).not.toMatch(/[\x00-\x08\x0b\x0c\x0e-\x1f]/);
    const out = xpath(xml, "string(//system-out)");
    expect(out).toContain('[rank 0] ERROR NCCL WARN cuda failure\n[rank 1] binaryjunk and a form feed here\n[rank 1] ]]> closes CDATA, <tag attr="v"> & entity &amp;');
    expect(out).toContain("lone surrogate  and U+FFFE  gone; é and 😀 stay");
    expect(xpath(xml, "string(//error/@message)")).toBe('crashed before reporting results: rank 1 exited 1: boom "quoted" <x> & ]]>');
  });

  test("an interrupted run says so, and a run still going has no end time", () => {
    const r: ResultsFile = { ...FIXTURES.passing(), complete: false, endedAt: null };
    const xml = renderJunit(r);
    assertJunitTextValid(xml);
    expect(xpath(xml, "string(/testsuites/testsuite/system-out)")).toBe("the run is still going or was killed: 3 of 3 tests started");
    expect(xpath(xml, "string(//property[@name='complete']/@value)")).toBe("false");
  });

  test("a run with no finished test is still valid JUnit", () => {
    const r: ResultsFile = { ...FIXTURES.passing(), tests: [], complete: false, endedAt: null };
    assertJunitTextValid(renderJunit(r));
  });

  test("assertJunitValid reports a broken file with xmllint's message, and wrong counts", () => {
    const dir = tempDir("gpucheck-junit-");
    writeFileSync(join(dir, "bad.xml"), `<testsuite name="x" tests="1" failures="0" errors="0" time="1,5.5"><testcase name="a"/></testsuite>`);
    expect(() => assertJunitValid(join(dir, "bad.xml"))).toThrow("does not validate against junit-10.xsd");
    writeFileSync(join(dir, "count.xml"), `<testsuite name="x" tests="2" failures="0" errors="0"><testcase name="a"/></testsuite>`);
    expect(() => assertJunitValid(join(dir, "count.xml"))).toThrow(`${join(dir, "count.xml")}: testsuite 1 says tests="2" but has 1`);
    expect(readFileSync(join(dir, "count.xml"), "utf8")).toContain("testsuite");
  });
});

describe("Python's jsonschema agrees with the in-process results check", () => {
  test("every results fixture is valid for both", () => {
    const paths = Object.keys(FIXTURES).map((name) => join(RESULTS_FIXTURES, `${name}.json`));
    assertResultsValid(...paths);
  });

  for (const [what, breakIt, zodMessage, jsonSchemaMessage] of RESULTS_INVALID) {
    test(`both refuse ${what}`, () => {
      const r = FIXTURES.passing() as unknown as Record<string, any>;
      breakIt(r);
      const path = join(tempDir("gpucheck-results-"), "results.json");
      writeFileSync(path, JSON.stringify(r));
      expect(() => parseResults(JSON.stringify(r), "results.json")).toThrow(`results.json: not a gpucheck results file:\n  ${zodMessage}`);
      expect(resultsSchemaErrors(path).join("\n")).toContain(`${path}: ${jsonSchemaMessage}`);
    });
  }
});
