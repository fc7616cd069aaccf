// The executor's time budget for a test whose per-node units take turns: one timeout per turn of the
// platform's window, also when only the run learns how many nodes there are (k8s without a node list).
import { expect, test } from "bun:test";
import { workloadFiles } from "../../lib/core/assets.ts";
import type { RunContext } from "../../lib/core/platform.ts";
import type { PlannedTest } from "../../lib/core/types.ts";
import { runUnits } from "../../lib/execute/run-test.ts";
import { planUnits } from "../../lib/core/planned-units.ts";
import { fakeSuite, scriptTest } from "../platforms/conformance.ts";
import { tempDir } from "../tmp.ts";
import { silentProgress } from "./planned-suite.ts";

const TIMEOUT_MS = 300;

function planned(perNode: boolean): PlannedTest {
  const t = { ...scriptTest("budget", "/usr/bin/python3", "print(1)", { nodes: 1, ranksPerNode: 1, timeoutMs: TIMEOUT_MS }), perNode };
  // no hosts before the run: a per-node test's one "{{node}}" placeholder unit, as k8s plans it
  return { ...t, units: planUnits(t, undefined), rendered: null };
}

/** runs the test through the executor; the platform says it found `count` nodes and waits for the budget to run out */
async function budgetOf(test: PlannedTest, count: number): Promise<{ deadlineMs: number; stoppedAfterMs: number; reason: unknown }> {
  const outDir = tempDir("gpucheck-budget-");
  let seen = { deadlineMs: 0, stoppedAfterMs: 0, reason: undefined as unknown };
  const t0 = Date.now();
  await runUnits(
    test,
    {
      suite: fakeSuite(),
      settings: {},
      outDir,
      workload: workloadFiles(),
      perNodeWindow: 2,
      cli: {},
      progress: silentProgress(),
      signal: new AbortController().signal,
      platformRun: async (ctx: RunContext<unknown>) => {
        ctx.perNodeUnits?.(count);
        const deadlineMs = ctx.deadline - t0;
        await new Promise((r) => ctx.signal.addEventListener("abort", r, { once: true }));
        seen = { deadlineMs, stoppedAfterMs: Date.now() - t0, reason: ctx.signal.reason };
        return [];
      },
    },
    outDir,
  );
  return seen;
}

test("5 nodes learnt at run time, 2 at a time: three turns, so three timeouts", async () => {
  const b = await budgetOf(planned(true), 5);
  expect(b.reason).toBe("timeout");
  expect(b.deadlineMs).toBeGreaterThanOrEqual(3 * TIMEOUT_MS);
  expect(b.deadlineMs).toBeLessThan(4 * TIMEOUT_MS);
  expect(b.stoppedAfterMs).toBeGreaterThanOrEqual(3 * TIMEOUT_MS - 5);
});

test("nodes that fit in one window, and a whole-cluster test, keep the one timeout", async () => {
  for (const [test, count] of [
    [planned(true), 2],
    [planned(false), 5],
  ] as const) {
    const b = await budgetOf(test, count);
    // less than two timeouts: slack for a loaded machine, still far from three
    expect(b.deadlineMs).toBeLessThan(2 * TIMEOUT_MS);
    expect(b.stoppedAfterMs).toBeLessThan(3 * TIMEOUT_MS);
  }
});
