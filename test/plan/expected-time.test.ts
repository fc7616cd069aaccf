// The plan's expected times: a kind's own estimate, the timeout as the upper bound, a pattern's rounds,
// a measured suite's total, and the exact --budget messages.
import { expect, test } from "bun:test";
import type { Plan, PlannedTest } from "../../lib/core/types.ts";
import { budgetFits, budgetRefusal, checkBudget, type ExpectedPlanTime, expectedTestTime } from "../../lib/plan/expected-time.ts";
import { measuredTime } from "../../lib/plan/measured-times.ts";

function planned(spec: Record<string, unknown>, timeoutMs: number, isolation?: PlannedTest["isolation"]): PlannedTest {
  return { name: "t", kind: spec.kind, timeoutMs, spec: { name: "t", timeoutMs, ...spec }, isolation } as unknown as PlannedTest;
}

test("a burn is expected to take its duration", () => {
  expect(expectedTestTime(planned({ kind: "burn", burn: { duration: 120_000 } }, 1_200_000))).toEqual({
    ms: 120_000,
    basis: "estimated from burn.duration (120s of load, plus a warm-up of 3 iterations)",
  });
});

test("a burn longer than its timeout is cut at the timeout, the upper bound", () => {
  expect(expectedTestTime(planned({ kind: "burn", burn: { duration: 900_000 } }, 600_000))).toEqual({
    ms: 600_000,
    basis: "estimated from the timeout (10m00s), an upper bound",
  });
});

test("a dcgm test takes its level's documented length; level 4, undocumented, its timeout", () => {
  expect(expectedTestTime(planned({ kind: "dcgm", dcgm: { level: 3 } }, 2_400_000))).toEqual({
    ms: 900_000,
    basis: "estimated from dcgm.level 3: level 3 lasts about 15 minutes (NVIDIA's dcgmi diag reference)",
  });
  expect(expectedTestTime(planned({ kind: "dcgm", dcgm: { level: 4 } }, 7_200_000)).basis).toBe("estimated from the timeout (2h00m00s), an upper bound");
});

test("a kind without its own estimate takes its timeout as the upper bound", () => {
  expect(expectedTestTime(planned({ kind: "collective" }, 45_000))).toEqual({ ms: 45_000, basis: "estimated from the timeout (45s), an upper bound" });
});

test("a pairwise pattern takes one launch per round; onFailure isolation adds nothing to a run that passes", () => {
  const iso = { pattern: "pairwise", hosts: ["a", "b", "c", "d"], seed: 1, rounds: [], planned: { rounds: 3, launches: 6 }, later: "" } as unknown as PlannedTest["isolation"];
  expect(expectedTestTime(planned({ kind: "collective" }, 60_000, iso))).toEqual({
    ms: 180_000,
    basis: "estimated from the timeout (1m00s), an upper bound, × 3 round(s) of pattern pairwise",
  });
  expect(expectedTestTime(planned({ kind: "collective" }, 60_000, { ...iso, onFailure: true } as PlannedTest["isolation"])).ms).toBe(60_000);
});

test("gpu-1x's total is the measured one, with its BENCHMARKS.md section; a plan of fewer tests (--only) is estimated", () => {
  expect(measuredTime("gpu-1x", 8)?.source).toStartWith('BENCHMARKS.md "GPU figures"');
  expect(measuredTime("gpu-1x", 3)).toBeUndefined();
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
  const one = { tests: [{ name: "a", ms: 120_000, basis: "" }], total: { ms: 120_000, basis: "estimated: the sum of the 1 tests' estimates" } };
  expect(budgetRefusal("plan", "mine", one, 60_000)).toBe(
    "gpucheck: plan: suite mine is expected to take 2m00s (estimated: the sum of the 1 tests' estimates), over --budget 1m00s by 1m00s; to fit, dropping tests cannot bring it under: raise --budget",
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
