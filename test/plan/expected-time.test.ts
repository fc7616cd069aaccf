// The plan's expected times: a kind's own estimate, the timeout as the upper bound, a pattern's rounds,
// a measured suite's total, and the exact --budget messages.
import { expect, test } from "bun:test";
import type { Plan, PlannedTest } from "../../lib/core/types.ts";
import { budgetFits, budgetRefusal, checkBudget, type ExpectedPlanTime, expectedPlanTime, expectedTestTime } from "../../lib/plan/expected-time.ts";
import { MEASURED_TIMES, measuredTime } from "../../lib/plan/measured-times.ts";

const COLL = { op: "all_reduce", minBytes: 8, maxBytes: 1024 ** 3, factor: 2, iters: 20, warmup: 5, check: true, checkIters: 20 };

function planned(spec: Record<string, unknown>, timeoutMs: number, isolation?: PlannedTest["isolation"]): PlannedTest {
  return { name: "t", kind: spec.kind, timeoutMs, worldSize: 2, gpusPerNode: 2, spec: { name: "t", timeoutMs, expect: [], ...spec }, isolation } as unknown as PlannedTest;
}

const STARTUP = `, plus 10s start-up derived from gpu-1x's measured wall (BENCHMARKS.md "GPU figures")`;

test("a burn is expected to take its duration, plus the start-up of its launch", () => {
  expect(expectedTestTime(planned({ kind: "burn", burn: { duration: 120_000 } }, 1_200_000))).toEqual({
    ms: 130_000,
    basis: `estimated from burn.duration (120s of load, plus a warm-up of 3 iterations)${STARTUP}`,
  });
});

test("a burn longer than its timeout is cut at the timeout, the upper bound", () => {
  expect(expectedTestTime(planned({ kind: "burn", burn: { duration: 900_000 } }, 600_000))).toEqual({
    ms: 600_000,
    basis: "estimated from the timeout (10m00s), an upper bound: the estimate (15m10s) is over it",
  });
});

test("a dcgm test takes its level's documented length; level 4, undocumented, its timeout", () => {
  expect(expectedTestTime(planned({ kind: "dcgm", dcgm: { level: 3 } }, 2_400_000))).toEqual({
    ms: 910_000,
    basis: `estimated from dcgm.level 3: level 3 lasts about 15 minutes (NVIDIA's dcgmi diag reference)${STARTUP}`,
  });
  expect(expectedTestTime(planned({ kind: "dcgm", dcgm: { level: 4 } }, 7_200_000)).basis).toBe(
    "estimated from the timeout (2h00m00s), an upper bound: dcgm.level 4 has no documented length (NVIDIA's dcgmi diag reference)",
  );
});

test("a kind without its own estimate takes its timeout as the upper bound; one that cannot estimate says why", () => {
  expect(expectedTestTime(planned({ kind: "nic" }, 45_000))).toEqual({ ms: 45_000, basis: "estimated from the timeout (45s), an upper bound" });
  expect(expectedTestTime(planned({ kind: "collective", collective: COLL, expect: [] }, 45_000))).toEqual({
    ms: 45_000,
    basis: "estimated from the timeout (45s), an upper bound: no busbw floor (min) to time the sweep at",
  });
});

test("a pairwise pattern takes one launch per round; onFailure isolation adds nothing to a run that passes", () => {
  const iso = { pattern: "pairwise", hosts: ["a", "b", "c", "d"], seed: 1, rounds: [], planned: { rounds: 3, launches: 6 }, later: "" } as unknown as PlannedTest["isolation"];
  expect(expectedTestTime(planned({ kind: "nic" }, 60_000, iso))).toEqual({
    ms: 180_000,
    basis: "estimated from the timeout (1m00s), an upper bound, × 3 round(s) of pattern pairwise",
  });
  expect(expectedTestTime(planned({ kind: "nic" }, 60_000, { ...iso, onFailure: true } as PlannedTest["isolation"])).ms).toBe(60_000);
  // a kind's own estimate is multiplied the same way: each round is a launch, start-up included
  const withFloor = { kind: "collective", collective: COLL, expect: [{ metric: "busbw", unit: "GB/s", min: 40 }] };
  const one = expectedTestTime(planned(withFloor, 600_000));
  expect(expectedTestTime(planned(withFloor, 600_000, iso))).toEqual({ ms: one.ms * 3, basis: `${one.basis}, × 3 round(s) of pattern pairwise` });
});

test("gpu-1x's total is the measured one only for the very commands the timed run launched", () => {
  const row = MEASURED_TIMES.find((m) => m.suite === "gpu-1x")!;
  expect(row.source).toStartWith('BENCHMARKS.md "GPU figures"');
  expect(measuredTime("gpu-1x", row.commands)?.same).toBe(true);
  // --only, or a test whose command changed since (the gemm sweep went from 10 to 100 timed calls)
  expect(measuredTime("gpu-1x", row.commands.slice(0, 3))?.same).toBe(false);
  expect(
    measuredTime(
      "gpu-1x",
      row.commands.map((c) => c.replace("--iters 10 ", "--iters 100 ")),
    )?.same,
  ).toBe(false);
  expect(measuredTime("h100-8x", row.commands)).toBeUndefined();
  const plan = (commands: string[], path = "builtin:gpu-1x.yaml") =>
    ({
      suite: { name: "gpu-1x", path },
      tests: commands.map((c) => ({ ...planned({ kind: "nic" }, 60_000), launch: { args: c.split(" ") } })),
    }) as unknown as Plan;
  expect(expectedPlanTime(plan(row.commands)).total).toEqual({ ms: 234_000, basis: `measured: ${row.source}` });
  expect(expectedPlanTime(plan(row.commands, "/home/me/gpu-1x.yaml")).total).toEqual({ ms: 480_000, basis: "estimated: the sum of the 8 tests' estimates" });
  expect(expectedPlanTime(plan(row.commands.slice(1))).total).toEqual({
    ms: 420_000,
    basis: "estimated: the sum of the 7 tests' estimates; the measured 3m54s (BENCHMARKS.md) launched other commands, so it is not used",
  });
});

const expected: ExpectedPlanTime = {
  tests: [
    { name: "gemm", ms: 300_000, basis: "" },
    { name: "dcgm-diag", ms: 2_400_000, basis: "" },
    { name: "burn", ms: 600_000, basis: "" },
  ],
  total: { ms: 3_300_000, basis: "estimated: the sum of the 3 tests' estimates" },
};

test("a plan over budget is refused, naming the tests to drop, longest first, until it fits", () => {
  expect(budgetRefusal("plan", "h100-8x", expected, 1_800_000)).toBe(
    "gpucheck: plan: suite h100-8x is expected to take 55m00s (estimated: the sum of the 3 tests' estimates), over --budget 30m00s by 25m00s; to fit, drop dcgm-diag (40m00s)",
  );
  expect(budgetRefusal("plan", "h100-8x", expected, 600_000)).toBe(
    "gpucheck: plan: suite h100-8x is expected to take 55m00s (estimated: the sum of the 3 tests' estimates), over --budget 10m00s by 45m00s; to fit, drop dcgm-diag (40m00s), burn (10m00s)",
  );
});

test("a budget that only dropping every test would meet says to raise it; so does a measured total, whose parts are not measured", () => {
  const one = { tests: [{ name: "a", ms: 120_000, basis: "" }], total: { ms: 120_000, basis: "estimated: its one test's estimate" } };
  expect(budgetRefusal("plan", "mine", one, 60_000)).toBe(
    "gpucheck: plan: suite mine is expected to take 2m00s (estimated: its one test's estimate), over --budget 1m00s by 1m00s; to fit, dropping tests cannot bring it under: raise --budget",
  );
  const measured = { tests: [{ name: "a", ms: 1000, basis: "" }], total: { ms: 234_000, basis: "measured: X" } };
  expect(budgetRefusal("plan", "gpu-1x", measured, 60_000)).toBe(
    "gpucheck: plan: suite gpu-1x is expected to take 3m54s (measured: X), over --budget 1m00s by 2m54s; to fit, raise --budget (only the whole suite's time is measured, so what dropping a test saves is not known)",
  );
});

test("a plan that fits says its total and margin", () => {
  expect(budgetRefusal("plan", "h100-8x", expected, 3_600_000)).toBeUndefined();
  expect(budgetFits(expected, 3_600_000)).toBe("expected total 55m00s fits --budget 1h00m00s with 5m00s to spare");
});

test("--budget that is no duration, or zero, is refused before anything is planned to run", () => {
  const plan = { suite: { name: "s" }, tests: [] } as unknown as Plan;
  expect(() => checkBudget("suite", plan, "soon")).toThrow(
    'gpucheck: suite: --budget "soon": invalid duration "soon": expected a number with ms, s, m or h (e.g. 90s, 10m, 1h30m); a plain number is seconds',
  );
  expect(() => checkBudget("plan", plan, "0m")).toThrow('gpucheck: plan: --budget "0m": must be above 0');
  expect(checkBudget("plan", plan, "30m")).toBe("expected total 0s fits --budget 30m00s with 30m00s to spare");
});

test("a per-node test of more nodes than the platform runs at once takes turns, each a launch, as the run gives it a timeout per turn", () => {
  const t = { ...planned({ kind: "inventory" }, 600_000), perNode: true, units: Array.from({ length: 10 }, (_, i) => ({ name: `n${i}` })) } as unknown as PlannedTest;
  expect(expectedTestTime(t, 4)).toEqual({
    ms: 30_000,
    basis: `estimated as its launch alone (its reads are inside the measured start-up)${STARTUP}, × 3 turns of 4 nodes at once (maxParallel)`,
  });
  // all at once: within the window, or a platform without one (local, slurm, docker)
  expect(expectedTestTime(t, 10).ms).toBe(10_000);
  expect(expectedTestTime(t).ms).toBe(10_000);
  // a whole-cluster test never takes turns
  expect(expectedTestTime({ ...t, perNode: false } as PlannedTest, 4).ms).toBe(10_000);
});
