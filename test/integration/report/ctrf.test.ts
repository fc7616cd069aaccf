// ctrf.json against CTRF's published schema (a validator that is not gpucheck's), with a CTRF test
// per part verdict and a run killed before its end never read as healthy.
import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { renderCtrf } from "../../../lib/report/ctrf.ts";
import { renderJunit } from "../../../lib/report/junit.ts";
import { fleetResults } from "../../fixtures/results/fleet.ts";
import { FIXTURES } from "../../fixtures/results/fixtures.ts";
import { tempDir } from "../../tmp.ts";
import { assertCtrfValid, ctrfSchemaErrors } from "../../report/ecosystem-validators.ts";
import { gemmParts, killedAhead } from "../../report/ecosystem-fixtures.ts";

const written = (name: string, text: string) => {
  const path = join(tempDir("gpucheck-ctrf-"), name);
  writeFileSync(path, text);
  return path;
};

describe("ctrf.json", () => {
  test("every results fixture, the per-part run and a killed run are valid against CTRF's schema", () => {
    const runs = { ...FIXTURES, "gemm-parts": gemmParts, "killed-ahead": killedAhead };
    assertCtrfValid(...Object.entries(runs).map(([name, build]) => written(`${name}.json`, renderCtrf(build()))));
  });

  test("the schema check is real: a status CTRF does not know is named with its path", () => {
    const doc = JSON.parse(renderCtrf(FIXTURES.passing()));
    doc.results.tests[0].status = "error";
    const path = written("bad.json", JSON.stringify(doc));
    expect(ctrfSchemaErrors(path)).toEqual([`${path}: results/tests/0/status: 'error' is not one of ['passed', 'failed', 'skipped', 'pending', 'other']`]);
  });

  test("one CTRF test per part verdict, named with its node: the slow GPU failed, the unmeasured one never passed", () => {
    const doc = JSON.parse(renderCtrf(gemmParts()));
    const tests = doc.results.tests as Array<Record<string, unknown>>;
    expect(tests.map((t) => [t.name, t.status, t.rawStatus])).toEqual([
      ["gemm", "failed", "error"],
      ["gemm [gpu-01] GPU 0 00000000:18:00.0", "passed", "passed"],
      ["gemm [gpu-01] GPU 1 00000000:19:00.0", "passed", "passed"],
      ["gemm [gpu-01] GPU 2 00000000:20:00.0", "failed", "error"],
      ["gemm [gpu-01] GPU 3 00000000:21:00.0", "failed", "failed"],
    ]);
    expect(tests[4]!.message).toBe("gpu-01 GPU 3 (GPU-00000003-aaaa-bbbb-cccc-dddddddddddd, 00000000:21:00.0): gemm_bf16_tflops 512.3 TFLOP/s < 700 TFLOP/s expected (-27%)");
    expect(tests[3]!.message).toBe(
      "gpu-01 GPU 2 (GPU-00000002-aaaa-bbbb-cccc-dddddddddddd, 00000000:20:00.0): gemm_bf16_tflops unmeasured: rank 2 printed no result (expected ≥ 700 TFLOP/s)",
    );
    expect(tests[4]!.suite).toEqual(["h100-8x", "gemm", "gpu-01"]);
    expect(tests[4]!.labels).toEqual({
      "gpucheck.kind": "gemm",
      "gpucheck.node": "gpu-01",
      "gpucheck.part": "gpu-01 GPU 3 (GPU-00000003-aaaa-bbbb-cccc-dddddddddddd, 00000000:21:00.0)",
      "gpucheck.uuid": "GPU-00000003-aaaa-bbbb-cccc-dddddddddddd",
    });
    expect(doc.results.summary).toMatchObject({ tests: 5, passed: 2, failed: 3, skipped: 0, pending: 0, other: 0 });
    expect(doc.results.environment.healthy).toBe(false);
  });

  test("a killed run: its unfinished tests are 'other' saying so, the run is not healthy and its outcome incomplete", () => {
    const doc = JSON.parse(renderCtrf(killedAhead()));
    const tests = doc.results.tests as Array<Record<string, unknown>>;
    expect(tests.map((t) => [t.name, t.status])).toEqual([
      ["nvlink-allreduce", "passed"],
      ["resnet18-fashionmnist", "other"],
      ["inventory", "other"],
    ]);
    expect(tests[1]).toMatchObject({ message: "not finished: the run stopped before this test ended", rawStatus: "unfinished", duration: 0 });
    expect(doc.results.summary).toMatchObject({
      tests: 3,
      passed: 1,
      failed: 0,
      other: 2,
      extra: { "gpucheck.outcome": "incomplete", "gpucheck.complete": false, "gpucheck.ended": false },
    });
    expect(doc.results.environment.healthy).toBe(false);
    // no end: the last moment known is the finished test's end
    expect(doc.results.summary.stop).toBe(Date.parse(FIXTURES.passing().tests[0]!.units[0]!.endedAt));
  });

  test("a node whose result never came back is a failed CTRF test of its own, named", () => {
    const r = FIXTURES["per-node"]();
    const t = { ...r.tests[0]!, units: r.tests[0]!.units.slice(0, 3), missing: ["gpu-04"], outcome: "error" as const };
    const doc = JSON.parse(renderCtrf({ ...r, tests: [t] }));
    expect(doc.results.tests.at(-1)).toMatchObject({
      name: "nvlink-allreduce [gpu-04]",
      status: "failed",
      rawStatus: "error",
      message: "no result came back from gpu-04: never counted passed",
    });
    assertCtrfValid(written("missing.json", JSON.stringify(doc)));
  });

  test("the same testcases as junit.xml, with the same counts (a fleet's passing parts left out of both)", () => {
    const runs = { ...FIXTURES, "gemm-parts": gemmParts, fleet: () => fleetResults({ nodes: 40, tests: 3, failing: [3, 17] }) };
    for (const [name, build] of Object.entries(runs)) {
      const r = build();
      const xml = renderJunit(r);
      const cases = [...xml.matchAll(/<testcase name="([^"]*)"/g)].map((m) =>
        m[1]!
          .replace(/&quot;/g, '"')
          .replace(/&amp;/g, "&")
          .replace(/&lt;/g, "<")
          .replace(/&gt;/g, ">"),
      );
      const doc = JSON.parse(renderCtrf(r));
      expect([name, doc.results.tests.map((t: { name: string }) => t.name)]).toEqual([name, cases]);
      const n = (re: RegExp) => (xml.match(re) ?? []).length;
      expect([name, doc.results.summary.failed, doc.results.summary.skipped]).toEqual([name, n(/<failure /g) + n(/<error /g), n(/<skipped /g)]);
    }
    // in the fleet, of its 40 × 8 GPUs only the slow one is a test of its own
    const fleet = JSON.parse(renderCtrf(runs.fleet())).results.tests.filter((t: { type: string }) => t.type === "gpucheck-part");
    expect(fleet.map((t: { name: string; status: string }) => `${t.name} ${t.status}`)).toEqual(["gemm-bf16 [gpu0004] GPU 3 00000000:48:00.0 failed"]);
  });

  test("a passed, finished run is healthy; the same results always give the same bytes", () => {
    const r = FIXTURES.passing();
    const text = renderCtrf(r);
    expect(JSON.parse(text).results.environment.healthy).toBe(true);
    expect(renderCtrf(JSON.parse(JSON.stringify(r)))).toBe(text);
  });
});
