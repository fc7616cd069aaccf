// Needs torch: its preflight checks PyTorch on the Python the suite names (hence the integration tier).
// `pattern: pairwise` on the k8s platform through the whole pipeline in-process, against the fake
// API server (test/k8s-fake): each round one Indexed Job per pair, pinned to its nodes, running the
// real workload (gloo on CPU), each pair judged, and the isolation naming the node whose pods fail.
import { silentProgress } from "../../pipeline/planned-suite.ts";
import { afterAll, beforeAll, expect, test } from "bun:test";
import { chmodSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Progress } from "../../../lib/core/progress.ts";
import type { ResultsFile } from "../../../lib/core/types.ts";
import { loadSuite } from "../../../lib/load/mod.ts";
import { executePlan } from "../../../lib/pipeline/run-suite.ts";
import { buildPlan } from "../../../lib/plan/plan.ts";
import "../../../cli/platforms.ts";
import { k8s } from "../../../plugins/k8s.ts";
import { runTest } from "../../../plugins/k8s/lifecycle.ts";
import { FakeCluster } from "../../k8s-fake/cluster.ts";
import { PYTHON } from "../../k8s-fake/harness.ts";
import { assertResultsValid } from "../../report/results-check.ts";
import { tempDir } from "../../tmp.ts";

const NAMES = ["node-a", "node-b", "node-c", "node-d"];
let cluster: FakeCluster;
beforeAll(async () => {
  cluster = await FakeCluster.start({ nodes: NAMES.map((name) => ({ name })) });
});
afterAll(async () => {
  await cluster.stop();
});

test("pairwise over 4 k8s nodes: a Job per pair, all of a round at once, the node whose pods fail named bad and no other", async () => {
  const dir = tempDir("gpucheck-isolate-k8s-");
  // the pods' python: on node-c the collective fails as a broken link would (the preflight passes, as it would)
  const python = join(dir, "python");
  const broken = `case " $* " in *" collective "*) [ "$GPUCHECK_NODE" = node-c ] && { echo "node-c is broken" >&2; exit 1; };; esac`;
  writeFileSync(python, `#!/bin/sh\n${broken}\nexec ${PYTHON} "$@"\n`);
  chmodSync(python, 0o755);
  const yaml = [
    "name: isolate-k8s",
    `platform: { type: k8s, k8s: { image: python:3-local, namespace: gpu, nodes: [${NAMES.join(", ")}] } }`,
    `defaults: { python: ${python}, gpusPerNode: 0, ranksPerNode: 1, timeout: 2m }`,
    "tests:",
    "  - name: fabric",
    "    kind: collective",
    "    pattern: pairwise",
    "    collective: { op: all_reduce, minBytes: 1KiB, maxBytes: 64KiB, factor: 4, iters: 2, warmup: 1, backend: gloo }",
    "    expect: { busbw: { min: 0.0001 GB/s } }",
    "",
  ].join("\n");
  writeFileSync(join(dir, "suite.yaml"), yaml);
  const suite = await loadSuite(join(dir, "suite.yaml"));
  const plan = buildPlan(suite, { cli: {} });
  expect(plan.tests[0]!.isolation!.rounds.map((r) => r.units)).toEqual([
    ["node-a+node-b", "node-c+node-d"],
    ["node-a+node-c", "node-d+node-b"],
    ["node-a+node-d", "node-b+node-c"],
  ]);
  const kubeconfig = cluster.kubeconfig(dir, { namespace: "gpu" });
  const platform = { ...k8s, run: (ctx: Parameters<typeof k8s.run>[0]) => runTest(ctx, { source: { env: { KUBECONFIG: kubeconfig } } }) };
  const notes: string[] = [];
  const progress: Progress = silentProgress(notes);
  const outDir = join(dir, "run");
  await executePlan(suite, plan, { outDir, cli: {}, progress, command: ["gpucheck"], suiteText: yaml, signal: new AbortController().signal, platform });
  assertResultsValid(join(outDir, "results.json"));
  const results = JSON.parse(readFileSync(join(outDir, "results.json"), "utf8")) as ResultsFile;
  const t = results.tests[0]!;
  expect(t.isolation?.bad).toEqual(["node-c"]);
  expect(t.isolation?.nodes.filter((n) => n.verdict !== "good").map((n) => n.node)).toEqual(["node-c"]);
  expect(t.outcome).toBe("failed");
  const first3 = t.units.filter((u) => /^[123]\./.test(u.unit)).map((u) => `${u.unit} ${u.status} ${u.hosts.join(",")}`);
  expect(first3).toEqual([
    "1.node-a+node-b completed node-a,node-b",
    "1.node-c+node-d failed node-c,node-d",
    "2.node-a+node-c failed node-a,node-c",
    "2.node-d+node-b completed node-d,node-b",
    "3.node-a+node-d completed node-a,node-d",
    "3.node-b+node-c failed node-b,node-c",
  ]);
  // one k8s run per round (the preflight's first, the failed nodes' evidence last), each round's Jobs under one run id
  const rounds = new Set(t.units.map((u) => u.unit.split(".")[0]));
  expect(notes.filter((n) => /^k8s: run [0-9a-f]{6} in namespace gpu/.test(n))).toHaveLength(1 + rounds.size + 1);
  const failedNodes = [...new Set(t.units.filter((u) => u.verdict.outcome === "failed" || u.verdict.outcome === "error").flatMap((u) => u.hosts))].sort();
  expect(results.evidence!.map((e) => e.node).sort()).toEqual(failedNodes);
}, 300_000);
