// The outputs of a 1,000-node run (issue 17): report.html by exception, junit.xml valid and one
// testsuite per test, results.json a unit per line with the telemetry series in files of their own.
// One run of 1,000 nodes × 10 tests with 3 failing nodes and 1 lost node, generated once for the file.
import { describe, expect, test as it } from "bun:test";
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { expandHostlist } from "../../../lib/core/hostlist.ts";
import { renderHtml } from "../../../lib/report/html.ts";
import { renderJunit } from "../../../lib/report/junit.ts";
import { parseResults } from "../../../lib/report/results.ts";
import { renderSummary } from "../../../lib/report/summary.ts";
import { writeRunFiles } from "../../../lib/report/write.ts";
import { FLEET_TESTS, fleetHost, fleetResults } from "../../fixtures/results/fleet.ts";
import { tempDir } from "../../tmp.ts";
import { assertJunitSchemaValid } from "../../report/junit-check.ts";

const FAILING = [16, 499, 998];
const LOST = 700;
const run = fleetResults({ nodes: 1000, failing: FAILING, missing: [LOST] });
const html = renderHtml(run);

describe("report.html at 1,000 nodes", () => {
  const rows = [...html.matchAll(/<tr data-outcome="(\w+)" data-node="([^"]+)">(.*?)<\/tr>/g)];

  it("lists the 3 failing nodes first, with their test, value and reason; then the lost node as unmeasured", () => {
    expect(rows.slice(0, 3).map((r) => [r[1], r[2]])).toEqual([
      ["failed", "gpu0017"],
      ["failed", "gpu0500"],
      ["failed", "gpu0999"],
    ]);
    expect(rows[0][3]).toContain("gemm-bf16");
    expect(rows[0][3]).toContain("511.9 TFLOP/s");
    expect(rows[0][3]).toContain("≥ 700 TFLOP/s");
    expect(rows[1][3]).toContain("nic_bw_gbps 96.6 Gb/s &lt; 370 Gb/s expected");
    expect(rows[2][3]).toContain("DCGM_FR_FIELD_VIOLATION");
    expect([rows[3][1], rows[3][2]]).toEqual(["unmeasured", fleetHost(LOST)]);
    expect(rows[3][3]).toContain("no result from any test, so not accepted");
    // a node with no result is one row, not one per test, and nothing else is listed
    expect(rows.filter((r) => r[2] === fleetHost(LOST))).toHaveLength(1);
    expect(rows).toHaveLength(4);
  });

  it("says the passing nodes as counts and ranges, never folding in the failing or the unmeasured node", () => {
    expect(html).toContain("1,000 nodes: 3 failed, 1 not measured by every test, 996 passed every test that measured them on their own.");
    const gemm = html.slice(html.indexOf('<tr data-outcome="failed"><td><a href="#test-2">gemm-bf16'));
    const passed = /PASSED<\/span> 998 <span class="mono hostlist">([^<]+)</.exec(gemm);
    expect(passed?.[1]).toBe("gpu[0001-0016,0018-0700,0702-1000]");
    const names = new Set(expandHostlist(passed?.[1] ?? ""));
    expect(names.size).toBe(998);
    for (const n of [16, LOST]) expect(names.has(fleetHost(n))).toBe(false);
    expect(gemm).toMatch(/UNMEASURED<\/span> 1 <span class="mono hostlist">gpu0701</);
  });

  it("has a node × test grid, a distribution per per-node test naming its failing node, and a search over embedded data", () => {
    expect(html).toContain('<svg class="plot heat"');
    expect(html.match(/<svg class="plot dist"/g)).toHaveLength(8);
    const gemmDist = html.slice(html.indexOf('data-test="gemm-bf16"'));
    expect(gemmDist.slice(0, gemmDist.indexOf("</figure>"))).toContain('class="node-label">gpu0017</text>');
    const data = JSON.parse(/<script type="application\/json" id="fleet-data">(.*?)<\/script>/.exec(html)?.[1] ?? "null");
    expect(data.nodes).toHaveLength(1000);
    expect(data.tests.map((t: { name: string }) => t.name)).toEqual(FLEET_TESTS);
    expect(data.tests[2].cells[16]).toBe("f");
    expect(data.tests[2].cells[LOST]).toBe("u");
    expect(data.tests[2].values[LOST]).toBeNull();
    expect(html).toContain('id="node-search"');
  });

  it("stays one self-contained file of well under a megabyte, and does not render every passing unit", () => {
    expect(html).not.toMatch(/<link|<img|\ssrc=|@import|url\(http/);
    expect(html.length).toBeLessThan(1_000_000);
    expect(html).not.toContain('data-unit="gpu0001"');
    expect(html).toContain('data-unit="gpu0017"');
  });
});

describe("the summary at 1,000 nodes", () => {
  const table = renderSummary(run, { color: false }).split("\n");
  const rowsOf = (test: string) => table.filter((l) => l.startsWith(`${test} `)).map((l) => l.split(/ {2,}/));

  it("gives each node that did not pass a row, and all that passed one row of hostlist ranges with the span of their headline", () => {
    expect(rowsOf("gemm-bf16")).toEqual([
      ["gemm-bf16", "gpu0017", "FAILED", "gemm_bf16_tflops_min 511.9 TFLOP/s", "58.9 s"],
      ["gemm-bf16", "gpu[0001-0016,0018-0700,0702-1000] (998 nodes)", "PASSED", "gemm_bf16_tflops_min 783.1 TFLOP/s to 797.5 TFLOP/s", "≤ 1m01s"],
    ]);
    expect(rowsOf("nvlink")).toEqual([["nvlink", "gpu[0001-0700,0702-1000] (999 nodes)", "PASSED", "nvlink_pair_gbps_min 366.3 GB/s to 367.4 GB/s", "≥ 300 GB/s", "≤ 1m01s"]]);
    // a whole-cluster test is one unit, as before
    expect(rowsOf("nccl-allreduce")).toEqual([["nccl-allreduce", "all", "PASSED", "busbw 368.9 GB/s at 8 GiB", "≥ 360 GB/s", "4m00s"]]);
    expect(table.length).toBeLessThan(40);
  });
});

describe("junit.xml at 1,000 nodes", () => {
  const xml = renderJunit(run);

  it("is valid against junit-10.xsd with one testsuite per test and a testcase per node", () => {
    const path = join(tempDir("gpucheck-junit-"), "fleet.xml");
    writeFileSync(path, xml);
    assertJunitSchemaValid(path);
    // the counts the schema cannot check, each testsuite against its testcases
    for (const m of xml.matchAll(/<testsuite name="[^"]+" tests="(\d+)" failures="(\d+)" errors="(\d+)" skipped="(\d+)"[^>]*>([\s\S]*?)<\/testsuite>/g)) {
      const cases = m[5].split("<testcase ").slice(1);
      expect([Number(m[1]), Number(m[2]), Number(m[3]), Number(m[4])]).toEqual([
        cases.length,
        cases.filter((c) => c.includes("<failure")).length,
        cases.filter((c) => c.includes("<error")).length,
        cases.filter((c) => c.includes("<skipped")).length,
      ]);
    }
    const suites = [...xml.matchAll(/<testsuite name="([^"]+)" tests="(\d+)" failures="(\d+)"/g)].map((m) => [m[1], Number(m[2]), Number(m[3])]);
    expect(suites.map((s) => s[0])).toEqual(FLEET_TESTS.map((t) => `h100-fleet.${t}`));
    // 999 measured nodes each; a failing node's failing part is a testcase of its own
    expect(suites[2]).toEqual(["h100-fleet.gemm-bf16", 1000, 2]);
    expect(suites[3]).toEqual(["h100-fleet.membw", 999, 0]);
    expect(xml).toContain('<testcase name="gemm-bf16 [gpu0017]" classname="gpucheck.h100-fleet.gemm-bf16"');
    expect(xml).toContain('<testcase name="gemm-bf16 [gpu0017] GPU 3 00000000:48:00.0"');
    expect(xml).not.toContain('<testcase name="gemm-bf16 [gpu0001] GPU 0');
  }, 600_000);
});

describe("results.json at 1,000 nodes", () => {
  it("writes a unit per line and each node's telemetry series to a file it names; the file reads back valid", () => {
    const dir = tempDir("gpucheck-fleet-");
    writeRunFiles(dir, run);
    const text = readFileSync(join(dir, "results.json"), "utf8");
    const lines = text.split("\n");
    expect(lines.filter((l) => l.trimStart().startsWith('{"unit":"gpu')).length).toBe(999 * 8);
    // and a line per node's inventory: the file is about one line per unit, not one per number
    expect(lines.length).toBeLessThan(999 * 8 + 1000 + 500);
    expect(text).not.toContain('"series":{"util_pct"');
    const back = parseResults(text, "results.json");
    const burn = back.tests[7].units[0].telemetry;
    expect(burn?.seriesFile).toBe("telemetry/burn/gpu0001.json");
    expect(JSON.parse(readFileSync(join(dir, burn?.seriesFile as string), "utf8"))).toEqual(run.tests[7].units[0].telemetry?.series as object);
    // the whole-cluster test is one unit: its series stay inline
    expect(back.tests[9].units[0].telemetry?.series?.util_pct?.length).toBeGreaterThan(0);
    expect(existsSync(join(dir, "telemetry/inventory"))).toBe(false);
    // 6,000 series files: removed here, inside this test's time, not in the shared clean-up after the run
    rmSync(dir, { recursive: true, force: true });
  }, 600_000);
});
