// The evidence step of a run (lib/evidence/run.ts): one `evidence` unit on each failed node through
// the platform, its lines packed into the node's bundle; a platform that cannot start the units at
// all, or a node that prints nothing, still leaves a bundle saying why, with the logs from here.
import { describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { PlatformError } from "../../lib/core/errors.ts";
import type { ResultsFile, UnitRun } from "../../lib/core/types.ts";
import { collectEvidence, evidenceTest, failedNodes } from "../../lib/evidence/run.ts";
import type { TestEnv } from "../../lib/execute/run-test.ts";
import { planLines, silentProgress } from "../pipeline/planned-suite.ts";
import { tempDir } from "../tmp.ts";

const dir = tempDir("gpucheck-evidence-run-");
mkdirSync(join(dir, "logs", "t", "n2"), { recursive: true });
writeFileSync(join(dir, "logs", "t", "n2", "rank-0.log"), "rank 0 of n2\n");

const unit = (name: string, outcome: "passed" | "failed" | "error", startedAt: string, endedAt: string) => ({
  unit: name,
  hosts: [name],
  startedAt,
  endedAt,
  logs: [`logs/t/${name}/rank-0.log`],
  verdict: { outcome },
});
const results = {
  platform: "ssh",
  tests: [
    { name: "t", units: [unit("n1", "passed", "2026-11-28T10:00:00Z", "2026-11-28T10:01:00Z"), unit("n2", "failed", "2026-11-28T10:00:05Z", "2026-11-28T10:02:00Z")] },
    { name: "u", units: [unit("n3", "error", "2026-11-28T10:03:00Z", "2026-11-28T10:04:00Z")] },
  ],
} as unknown as ResultsFile;

async function env(platformRun: TestEnv["platformRun"]): Promise<{ env: TestEnv; tests: Awaited<ReturnType<typeof planLines>>["plan"]["tests"] }> {
  const { suite, plan } = await planLines(dir, [
    "name: s",
    "defaults: { gpusPerNode: 0, ranksPerNode: 1, python: /usr/bin/python3 }",
    "tests:",
    "  - { name: t, kind: inventory }",
  ]);
  return {
    env: { suite, settings: {}, outDir: dir, workload: new Map(), platformRun, cli: {}, progress: silentProgress(), signal: new AbortController().signal },
    tests: plan.tests,
  };
}

describe("the evidence step", () => {
  test("one unit per failed or errored node, pinned to it, over the span of its failed units, within the suite's limits", async () => {
    const nodes = failedNodes(results);
    expect([...nodes.keys()]).toEqual(["n2", "n3"]);
    const { tests } = await env(() => Promise.resolve([]));
    const t = evidenceTest(tests, nodes, 1024, 60_000);
    expect(t.units.map((u) => [u.name, u.nodes])).toEqual([
      ["n2", ["n2"]],
      ["n3", ["n3"]],
    ]);
    expect(t.launch.args).toEqual([
      "-m",
      "gpucheck_workload",
      "evidence",
      "--since",
      "2026-11-28T10:00:05Z",
      "--until",
      "2026-11-28T10:04:00Z",
      "--max-bytes",
      "1024",
      "--deadline-s",
      "55",
    ]);
    expect(t.timeoutMs).toBe(60_000);
  });

  test("a platform that cannot start the units: each node's bundle says why, and holds its logs from here", async () => {
    const { env: e, tests } = await env(() => Promise.reject(new PlatformError('docker: unit "n2" names node "n2", which is no engine\'s: localhost')));
    const bundles = await collectEvidence(results, tests, e, { maxBytes: 1 << 20 });
    expect(bundles.map((b) => [b.node, b.file, b.missing[0]])).toEqual([
      [
        "n2",
        "evidence/n2.tar.gz",
        { item: "the node's state", why: 'the evidence command could not start on n2: docker: unit "n2" names node "n2", which is no engine\'s: localhost' },
      ],
      [
        "n3",
        "evidence/n3.tar.gz",
        { item: "the node's state", why: 'the evidence command could not start on n3: docker: unit "n2" names node "n2", which is no engine\'s: localhost' },
      ],
    ]);
    expect(bundles[0]!.collected).toEqual(["MANIFEST.txt", "logs/t/n2/rank-0.log"]);
  });

  test("a node whose evidence command printed nothing: said so, never an empty pass", async () => {
    const now = new Date().toISOString();
    const done = (u: string): UnitRun => ({ unit: u, hosts: [u], status: "completed", startedAt: now, endedAt: now, ranks: [], output: "", tail: "" });
    const { env: e, tests } = await env(() => Promise.resolve([done("n2"), done("n3")]));
    const bundles = await collectEvidence(results, tests, e, {});
    expect(bundles[0]!.missing).toContainEqual({ item: "the node's state", why: "the evidence command on n2 printed no GPUCHECK_EVIDENCE line" });
  });
});
