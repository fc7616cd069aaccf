// After the tests: a bundle for each node a failed or errored unit ran on, its state collected on that
// node through the platform that ran the test (one `evidence` process per node, all at once, the way
// the preflight runs), packed privately into the run directory (evidence/<node>.tar.gz) and listed in
// results.json.
import { join } from "node:path";
import { rmSync } from "node:fs";
import { ensurePrivateDir, writePrivateFile } from "../core/private-fs.ts";
import { ranksOn } from "../core/planned-units.ts";
import type { PlannedTest, ResultsFile } from "../core/types.ts";
import { runUnits, safeName, type TestEnv } from "../execute/run-test.ts";
import { nodeProbeTest, quietProgress } from "../execute/node-probe.ts";
import { DEFAULT_EVIDENCE_BYTES, type EvidenceBundle, nodeItems, packBundle } from "./collect.ts";

/** Where the evidence processes' own logs go while the bundles are made (removed after: their data is in the bundles). */
const EVIDENCE_LOGS = "evidence-logs";

/**
 * How long the nodes have, by default: the items take seconds on a node that answers, nvidia-bug-report.sh
 * one to three minutes on an 8-GPU node; a frozen node answers nothing and costs the run this long.
 * The workload stops starting items 5 s before it (--deadline-s).
 */
export const EVIDENCE_TIMEOUT_MS = 5 * 60_000;

interface FailedNode {
  since: string;
  until: string;
  logs: string[];
}

/** Each node a failed or errored unit ran on, with the span of its failed units and their logs. */
export function failedNodes(results: ResultsFile): Map<string, FailedNode> {
  const byNode = new Map<string, FailedNode>();
  for (const t of results.tests)
    for (const u of t.units) {
      if (u.verdict.outcome !== "failed" && u.verdict.outcome !== "error") continue;
      for (const host of u.hosts) {
        const n = byNode.get(host) ?? { since: u.startedAt, until: u.endedAt, logs: [] };
        if (u.startedAt < n.since) n.since = u.startedAt;
        if (u.endedAt > n.until) n.until = u.endedAt;
        n.logs.push(...u.logs);
        byNode.set(host, n);
      }
    }
  return byNode;
}

/** The evidence processes as a planned test: one rank on each failed node, pinned to it. */
export function evidenceTest(tests: PlannedTest[], nodes: Map<string, FailedNode>, maxBytes: number, timeoutMs: number): PlannedTest {
  const spans = [...nodes.values()];
  const since = spans.map((n) => n.since).sort()[0]!;
  const until = spans
    .map((n) => n.until)
    .sort()
    .at(-1)!;
  const names = [...nodes.keys()];
  return nodeProbeTest(tests, {
    name: "evidence",
    python: tests[0]!.launch.python,
    args: ["evidence", "--since", since, "--until", until, "--max-bytes", String(maxBytes), "--deadline-s", String(Math.max(1, Math.floor(timeoutMs / 1000) - 5))],
    nodes: names.length,
    timeoutMs,
    units: names.map((h) => ({ name: h, nodes: [h], ranks: ranksOn(1, 1) })),
  });
}

export async function collectEvidence(results: ResultsFile, tests: PlannedTest[], env: TestEnv, opts: { maxBytes?: number; timeout?: number } = {}): Promise<EvidenceBundle[]> {
  const maxBytes = opts.maxBytes ?? DEFAULT_EVIDENCE_BYTES;
  const nodes = failedNodes(results);
  if (!nodes.size || !tests.length) return [];
  env.progress.note(`evidence: collecting the state of ${nodes.size} failed node(s) (${[...nodes.keys()].join(", ")})`);
  const logDir = join(env.outDir, EVIDENCE_LOGS);
  // its rank lines are base64: not a test's progress
  const records = await runUnits(evidenceTest(tests, nodes, maxBytes, opts.timeout ?? EVIDENCE_TIMEOUT_MS), { ...env, progress: quietProgress(env.progress) }, logDir);
  const bundles: EvidenceBundle[] = [];
  for (const [node, n] of nodes) {
    const r = records.find((x) => x.unit === node);
    // a platform that could not start the units at all answers with one unit "all" saying why
    const whole = records.length === 1 && records[0]!.unit === "all" ? records[0] : undefined;
    const items = r ? nodeItems(r.texts) : [];
    const problem = !r
      ? whole
        ? `the evidence command could not start on ${node}: ${whole.message ?? whole.status}`
        : `the ${results.platform} platform returned nothing for ${node}`
      : r.status !== "completed"
        ? `the evidence command on ${node} ended ${r.status}: ${r.message ?? "no message"}`
        : items.length === 0
          ? `the evidence command on ${node} printed no GPUCHECK_EVIDENCE line`
          : undefined;
    const { bundle, archive } = packBundle({ node, outDir: env.outDir, items, ...(problem ? { problem } : {}), logs: [...new Set(n.logs)], maxBytes });
    const file = `evidence/${safeName(node)}.tar.gz`;
    ensurePrivateDir(join(env.outDir, "evidence"));
    writePrivateFile(join(env.outDir, file), archive);
    bundles.push({ ...bundle, file });
  }
  rmSync(logDir, { recursive: true, force: true });
  return bundles;
}
