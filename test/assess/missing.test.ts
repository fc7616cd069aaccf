// A planned node whose result never came back is `missing`: named in results.json, the summary and
// the certificate's predicate, and the test is an error however well the other nodes did.
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { assessTest } from "../../lib/assess/assess.ts";
import type { PlannedTest, ResultsFile } from "../../lib/core/types.ts";
import type { RunRecord } from "../../lib/execute/record.ts";
import { renderSummary } from "../../lib/report/summary.ts";
import { buildStatement } from "../../lib/sign/statement.ts";

const canned = readFileSync(join(import.meta.dir, "..", "standin", "canned", "inventory.json"), "utf8").trim();

const planned = (nodes: string[], unitNames = nodes): PlannedTest =>
  ({
    name: "inventory",
    kind: "inventory",
    nodes: nodes.length,
    gpusPerNode: 0,
    ranksPerNode: 1,
    worldSize: 1,
    perNode: true,
    timeoutMs: 60_000,
    launch: { python: "python3", args: ["-m", "gpucheck_workload", "inventory"], env: {}, files: [] },
    expect: [],
    spec: { name: "inventory", kind: "inventory" },
    units: unitNames.map((n) => ({ name: n, nodes: [n], ranks: [{ rank: 0, localRank: 0, node: 0 }] })),
    rendered: null,
  }) as unknown as PlannedTest;

const record = (node: string): RunRecord => {
  const text = `GPUCHECK_RESULT ${canned.replace("@NODE@", node)}\n`;
  const at = "2026-11-26T00:00:00.000Z";
  return {
    unit: node,
    hosts: [node],
    status: "completed",
    startedAt: at,
    endedAt: at,
    ranks: [{ rank: 0, host: node, log: "x", exitCode: 0 }],
    output: text,
    tail: "",
    texts: [text],
  };
};

test("two of three nodes answered: the third is missing, the test an error, named in the summary and the predicate", () => {
  const result = assessTest(planned(["gpu01", "gpu02", "gpu03"]), [record("gpu01"), record("gpu03")]);
  expect(result.missing).toEqual(["gpu02"]);
  expect(result.outcome).toBe("error");
  expect(result.units.map((u) => u.verdict.outcome)).toEqual(["passed", "passed"]);
  const results = {
    schemaVersion: 1,
    gpucheck: "0",
    suite: { name: "s", description: "", path: "s.yaml", sha256: "0".repeat(64) },
    platform: "ssh",
    command: [],
    startedAt: "2026-11-26T00:00:00.000Z",
    endedAt: "2026-11-26T00:00:01.000Z",
    complete: true,
    outcome: "error",
    tests: [result],
    inventory: [],
  } as ResultsFile;
  expect(renderSummary(results, { color: false })).toContain("\nMissing (no result came back, never counted passed):\n  inventory: 1 node: gpu02\n");
  const st = buildStatement(results, [{ name: "results.json", sha256: "0".repeat(64) }], { certifiedAt: "2026-11-26T00:00:02.000Z", gpucheckVersion: "0" });
  expect(st.predicate.tests[0]!.missing).toEqual(["gpu02"]);
});

test("every node answered, or the nodes were known only at run time: nothing is missing", () => {
  const all = assessTest(planned(["gpu01", "gpu02"]), [record("gpu01"), record("gpu02")]);
  expect(all.missing).toBeUndefined();
  expect(all.outcome).toBe("passed");
  const slots = assessTest(planned(["n"], ["{{node}}"]), [record("k8s-node-7")]);
  expect(slots.missing).toBeUndefined();
});
