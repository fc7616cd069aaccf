// Preflight: before the first test, one process on every node the platform would use (a per-node
// unit, the way a per-node inventory test runs: every ssh host, every usable Slurm node of the
// partition, every k8s node the selector picks), all nodes at once, through the platform's own
// run(). Its verdict decides whether any test starts.
import { join } from "node:path";
import type { PlannedTest, PreflightNode, PreflightResult } from "../core/types.ts";
import { runUnits, type TestEnv } from "../execute/run-test.ts";
import { judgePreflightUnit } from "./judge.ts";
import { preflightInputs, type TestNeeds } from "./needs.ts";
import { PREFLIGHT_FAILED } from "../execute/not-started.ts";
import { nodeProbeTest, quietProgress } from "../execute/node-probe.ts";
import { planUnits } from "../core/planned-units.ts";
import type { RunHosts } from "../core/platform.ts";

/**
 * The preflight unit's time limit. The probes bound themselves (torch import and CUDA 120 s,
 * nvidia-smi 20 s); the rest is the platform's start-up: a queued Slurm job, a pulled image.
 */
export const PREFLIGHT_TIMEOUT_MS = 5 * 60_000;

/** Where the preflight's logs go: beside logs/, so no test name can collide with them. */
export const PREFLIGHT_DIR = "preflight";

/** Every host of the run, as a test's placement records them (used and idle); undefined when known only at run time. */
function runHostsOf(t: PlannedTest): RunHosts | undefined {
  return t.placement && { names: [...t.placement.hosts, ...t.placement.unused], separate: true };
}

/** The preflight as a planned test: one rank per node on every node of the run. */
export function preflightTest(tests: PlannedTest[], needs: TestNeeds[]): PlannedTest {
  const { interpreters, tools } = preflightInputs(needs);
  const nodes = Math.max(...tests.map((t) => t.nodes));
  return nodeProbeTest(tests, {
    name: "preflight",
    python: interpreters[0]!,
    args: ["preflight", ...interpreters.flatMap((p) => ["--python", p]), ...tools.flatMap((t) => ["--tool", t])],
    nodes,
    timeoutMs: PREFLIGHT_TIMEOUT_MS,
    units: planUnits({ nodes, ranksPerNode: 1, perNode: true }, runHostsOf(tests[0]!)),
  });
}

export async function runPreflight(tests: PlannedTest[], needs: TestNeeds[], env: TestEnv): Promise<PreflightResult> {
  const startedAt = new Date().toISOString();
  const test = preflightTest(tests, needs);
  // only the probe's verdict is shown
  const records = await runUnits(test, { ...env, progress: quietProgress(env.progress) }, join(env.outDir, PREFLIGHT_DIR));
  const nodes: PreflightNode[] = records.map((r) => judgePreflightUnit({ ...r, logs: r.ranks.map((x) => x.log) }, needs));
  return { passed: preflightPassed(nodes), startedAt, endedAt: new Date().toISOString(), nodes };
}

/** Every node passed, and at least one was looked at: a sweep of only drained nodes checked nothing. */
export function preflightPassed(nodes: PreflightNode[]): boolean {
  return nodes.some((n) => n.status !== "skipped") && nodes.every((n) => n.passed);
}

/** "preflight failed on gpu-03: 0 GPUs visible …" for one test: the first problem that concerns it, else the first of all. */
export function preflightSkipReason(pre: PreflightResult, test: string): string {
  const failed = pre.nodes.filter((n) => !n.passed);
  const own = failed.flatMap((n) => n.problems.filter((p) => p.tests.includes(test)).map((p) => [n.node, p.message] as const));
  const [node, why] = own[0] ?? [failed[0]?.node ?? "every node", failed[0]?.problems[0]?.message ?? "the platform offered no usable node"];
  return `${PREFLIGHT_FAILED} ${node}: ${why}`;
}
