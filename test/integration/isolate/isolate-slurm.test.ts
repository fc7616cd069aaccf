// Needs torch: its preflight checks PyTorch on the Python the suite names (hence the integration tier).
// `pattern: pairwise` on the slurm platform through the whole pipeline in-process: the plan's
// rounds, each round one job of the fake Slurm (test/fakes/fake-slurm.ts) with a step per pair
// running the real workload (gloo on CPU), each pair judged, and the isolation naming the node
// whose link is cut. The real Slurm runs a round in test/integration/platforms/slurm.test.ts.
import { silentProgress } from "../../pipeline/planned-suite.ts";
import { expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Progress } from "../../../lib/core/progress.ts";
import type { ResultsFile } from "../../../lib/core/types.ts";
import { loadSuite } from "../../../lib/load/mod.ts";
import { executePlan } from "../../../lib/pipeline/run-suite.ts";
import { buildPlan } from "../../../lib/plan/plan.ts";
import "../../../cli/platforms.ts";
import { FakeSlurm } from "../../fakes/fake-slurm.ts";
import { onFakeSlurm } from "../../platforms/fake-slurm-platform.ts";
import { assertResultsValid } from "../../report/results-check.ts";
import { tempDir } from "../../tmp.ts";
import { PYTHON } from "../../pipeline/fake-platform.ts";

test("pairwise over 4 slurm nodes: one job per round, a step per pair, the node whose link is cut named bad and no other", async () => {
  const dir = tempDir("gpucheck-isolate-slurm-");
  const fake = new FakeSlurm(["node1", "node2", "node3", "node4"], ["node3"]);
  const platform = onFakeSlurm(fake);
  const yaml = [
    "name: isolate-slurm",
    `platform: { type: slurm, slurm: { nodelist: "node[1-4]", stageDir: ${JSON.stringify(tempDir("gpucheck-isolate-slurm-stage-"))}, pollMaxS: 0.5 } }`,
    `defaults: { python: ${PYTHON}, gpusPerNode: 0, ranksPerNode: 1, timeout: 2m }`,
    "tests:",
    "  - name: fabric",
    "    kind: collective",
    "    pattern: pairwise",
    "    collective: { op: all_reduce, minBytes: 1KiB, maxBytes: 64KiB, factor: 4, iters: 2, warmup: 1, backend: gloo }",
    // a floor far below what gloo on a busy CPU gives: pairs are judged by it, not against each other's noise
    "    expect: { busbw: { min: 0.0001 GB/s } }",
    "",
  ].join("\n");
  writeFileSync(join(dir, "suite.yaml"), yaml);
  const suite = await loadSuite(join(dir, "suite.yaml"));
  const plan = buildPlan(suite, { cli: {} });
  expect(plan.tests[0]!.isolation!.rounds.map((r) => r.units)).toEqual([
    ["node1+node2", "node3+node4"],
    ["node1+node3", "node4+node2"],
    ["node1+node4", "node2+node3"],
  ]);
  const notes: string[] = [];
  const progress: Progress = silentProgress(notes);
  const outDir = join(dir, "run");
  await executePlan(suite, plan, { outDir, cli: {}, progress, command: ["gpucheck"], suiteText: yaml, signal: new AbortController().signal, platform });
  assertResultsValid(join(outDir, "results.json"));
  const results = JSON.parse(readFileSync(join(outDir, "results.json"), "utf8")) as ResultsFile;
  const t = results.tests[0]!;
  expect(t.isolation?.bad).toEqual(["node3"]);
  expect(t.isolation?.nodes.filter((n) => n.verdict !== "good").map((n) => n.node)).toEqual(["node3"]);
  expect(t.outcome).toBe("failed");
  // one sbatch per round (the preflight's sweep first, the failed nodes' evidence last), every pair of a round a step of its job
  const rounds = new Set(t.units.map((u) => u.unit.split(".")[0]));
  expect(fake.calls.filter((c) => c[0] === "sbatch")).toHaveLength(1 + rounds.size + 1);
  const failedNodes = [...new Set(t.units.filter((u) => u.verdict.outcome === "failed" || u.verdict.outcome === "error").flatMap((u) => u.hosts))].sort();
  expect(results.evidence!.map((e) => e.node).sort()).toEqual(failedNodes);
  const first3 = t.units.filter((u) => /^[123]\./.test(u.unit)).map((u) => `${u.unit} ${u.status}`);
  expect(first3).toEqual(["1.node1+node2 completed", "1.node3+node4 failed", "2.node1+node3 failed", "2.node4+node2 completed", "3.node1+node4 completed", "3.node2+node3 failed"]);
  expect(t.units.find((u) => u.unit === "1.node3+node4")!.verdict.reason).toMatch(
    /^crashed before reporting results: rank 0 on node3 failed with exit code 1: fake-slurm: the link of node3 is cut \(job \d+\)/,
  );
  expect(notes.filter((n) => n.startsWith("submitted Slurm job "))).toHaveLength(1 + rounds.size + 1);
}, 300_000);
