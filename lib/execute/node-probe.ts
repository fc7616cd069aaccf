// A process on each node that describes that node rather than testing it: the preflight before the
// tests, a failed node's evidence after them. Planned as a per-node test of one rank per node, which
// every platform runs like an inventory test, with the most GPUs any test asks for (so a container or
// pod is given them) and the suite's environment (CUDA_VISIBLE_DEVICES, LD_LIBRARY_PATH change what
// the node shows).
import type { Progress } from "../core/progress.ts";
import type { PlannedTest, PlannedUnit } from "../core/types.ts";
import { commonOf } from "../kinds/mod.ts";

export function nodeProbeTest(tests: PlannedTest[], probe: { name: string; python: string; args: string[]; nodes: number; timeoutMs: number; units: PlannedUnit[] }): PlannedTest {
  const first = tests[0]!;
  const gpusPerNode = Math.max(...tests.map((t) => t.gpusPerNode));
  const env = Object.assign({}, ...tests.map((t) => t.launch.env)) as Record<string, string>;
  const { name, nodes, timeoutMs, python } = probe;
  return {
    name,
    kind: "inventory",
    nodes,
    gpusPerNode,
    ranksPerNode: 1,
    worldSize: 1,
    perNode: true,
    timeoutMs,
    launch: { python, args: ["-m", "gpucheck_workload", ...probe.args], env, files: first.launch.files },
    expect: [],
    spec: { ...commonOf(first.spec), name, kind: "inventory", nodes, gpusPerNode, ranksPerNode: 1, perNode: true, timeoutMs, env, python, expect: [] },
    units: probe.units,
    rendered: null,
  };
}

/** A probe's rank lines are not a test's progress: only what the caller notes is shown. */
export function quietProgress(p: Progress): Progress {
  return { ...p, line: () => {}, ranksReporting: () => {}, phase: () => {}, metric: () => {} };
}
