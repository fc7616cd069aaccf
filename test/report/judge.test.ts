import { describe, expect, test } from "bun:test";
import { aggregateOutcome, exitCodeFor, headlineOf, judgeTest, judgeUnit } from "../../lib/assess/judge.ts";
import type { Expectation, Measurement, UnitResult } from "../../lib/core/types.ts";
import { allReduceSweep, training } from "../fixtures/results/build.ts";

const GiB = 1024 ** 3;
const busbw400: Expectation = { metric: "busbw", unit: "GB/s", min: 400, text: "busbw >= 400 GB/s" };
const wrong0: Expectation = { metric: "wrong", unit: "count", min: 0, max: 0, text: "wrong == 0" };

/** A measurement whose busbw at 8 GiB is exactly `v` (and 1 GiB half of it). */
function collective(v: number | null, extra: Partial<Measurement["metrics"]> = {}): Measurement {
  return {
    metrics: { busbw: v, wrong: 0, complete: 1, ...extra },
    bySize: {
      busbw: [
        [GiB, v === null ? null : v / 2],
        [8 * GiB, v],
      ],
    },
  };
}
const done = (m: Measurement | null) => ({ status: "completed" as const, measurement: m });

describe("judgeUnit: passed and failed", () => {
  test("a missed minimum names metric, both values, unit, size and margin", () => {
    const v = judgeUnit([busbw400], done(collective(182.3)));
    expect(v.outcome).toBe("failed");
    expect(v.reason).toBe("busbw 182.3 GB/s at 8 GiB < 400 GB/s expected (-54%)");
    expect(v.checks[0]).toEqual({
      metric: "busbw",
      expectation: "busbw >= 400 GB/s",
      measured: 182.3,
      expected: 400,
      unit: "GB/s",
      ok: false,
      message: "busbw 182.3 GB/s at 8 GiB < 400 GB/s expected (-54%)",
    });
  });

  test("a met minimum passes and still says by how much", () => {
    const v = judgeUnit([busbw400, wrong0], done(collective(463.71)));
    expect(v.outcome).toBe("passed");
    expect(v.checks.map((c) => c.message)).toEqual(["busbw 463.7 GB/s at 8 GiB ≥ 400 GB/s expected (+16%)", "wrong 0 = 0 expected"]);
    expect(v.reason).toBe("2 of 2 checks passed: busbw 463.7 GB/s at 8 GiB ≥ 400 GB/s expected (+16%)");
  });

  test("a threshold at a named size reads that size's row", () => {
    const v = judgeUnit([{ ...busbw400, at: GiB, text: "busbw@1GiB >= 400 GB/s" }], done(collective(700)));
    expect(v.reason).toBe("busbw 350 GB/s at 1 GiB < 400 GB/s expected (-13%)");
  });

  test("a maximum on a scalar metric", () => {
    const e: Expectation = { metric: "step_time_ms", unit: "ms", max: 100, text: "step_time_ms <= 100 ms" };
    const v = judgeUnit([e], done(training(2000, 5)));
    expect(v.reason).toBe("step_time_ms 128 ms > 100 ms expected (+28%)");
  });

  test("a value just under the threshold is never printed equal to it", () => {
    const v = judgeUnit([busbw400], done(collective(399.96)));
    expect(v.reason).toBe("busbw 399.96 GB/s at 8 GiB < 400 GB/s expected (-0.010%)");
  });

  test("#wrong > 0 fails with a threshold on it", () => {
    const v = judgeUnit([busbw400, wrong0], done(collective(450, { wrong: 3 })));
    expect(v.outcome).toBe("failed");
    expect(v.reason).toBe("wrong 3 ≠ 0 expected (+3)");
  });

  test("#wrong > 0 fails even when the suite set no threshold on it", () => {
    const v = judgeUnit([busbw400], done(collective(450, { wrong: 12 })));
    expect(v.outcome).toBe("failed");
    expect(v.reason).toBe("wrong 12 ≠ 0 expected (+12; correctness check)");
  });

  test("#wrong N/A (-c 0) is not a failure", () => {
    expect(judgeUnit([busbw400], done(collective(450, { wrong: null }))).outcome).toBe("passed");
  });

  test("nccl-tests exiting non-zero because of #wrong is a failure, with the exit in the reason", () => {
    const v = judgeUnit([busbw400], { status: "failed", message: "rank 0 exited 7", measurement: collective(450, { wrong: 1 }) });
    expect(v.outcome).toBe("failed");
    expect(v.reason).toBe("wrong 1 ≠ 0 expected (+1; correctness check) (rank 0 exited 7)");
  });

  test("no thresholds: a complete run passes and says so", () => {
    expect(judgeUnit([], done({ metrics: { samples_per_s: 10 } }))).toEqual({
      outcome: "passed",
      reason: "recorded (no thresholds): completed, with nothing to judge it against",
      checks: [],
    });
  });
});

describe("judgeUnit: error, never a pass", () => {
  test("an nccl-tests log without its footer is an error even when busbw looks fine", () => {
    const v = judgeUnit([busbw400], done(allReduceSweep(480, 8, { maxBytes: 256 * 1024 * 1024, complete: false })));
    expect(v.outcome).toBe("error");
    expect(v.reason).toBe("output incomplete: the workload output ended before its summary (hung, killed or crashed)");
    expect(v.checks).toEqual([]);
  });

  test("the executor's own completeness flag counts too", () => {
    expect(judgeUnit([busbw400], { ...done(collective(450)), complete: false }).outcome).toBe("error");
  });

  test("no measurement at all", () => {
    expect(judgeUnit([busbw400], { status: "completed", message: "no GPUCHECK_RESULT line in rank 0's output", measurement: null })).toEqual({
      outcome: "error",
      reason: "output unusable: no GPUCHECK_RESULT line in rank 0's output",
      checks: [],
    });
  });

  test("a crash before any result", () => {
    expect(judgeUnit([busbw400], { status: "failed", message: "rank 3 killed by signal SIGKILL", measurement: null }).reason).toBe(
      "crashed before reporting results: rank 3 killed by signal SIGKILL",
    );
  });

  test("a crash after a complete, passing result", () => {
    const v = judgeUnit([busbw400], { status: "failed", message: "rank 1 exited 139", measurement: collective(450) });
    expect(v.outcome).toBe("error");
    expect(v.reason).toBe("crashed after reporting results: rank 1 exited 139");
  });

  test.each([
    ["timeout", "timed out: no result after 600 s"],
    ["cancelled", "cancelled: no result after 600 s"],
    ["infra", "could not run: no result after 600 s"],
  ] as const)("status %s is an error whatever the output says", (status, reason) => {
    const v = judgeUnit([busbw400], { status, message: "no result after 600 s", measurement: collective(450) });
    expect(v.outcome).toBe("error");
    expect(v.reason).toBe(reason);
  });

  test("a threshold on a metric the output lacks is an error, not a failure", () => {
    const v = judgeUnit([{ metric: "tokens_per_s", unit: "tokens/s", min: 1000, text: "tokens_per_s >= 1000" }], done({ metrics: { samples_per_s: 10 } }));
    expect(v.outcome).toBe("error");
    expect(v.reason).toBe("tokens_per_s not measured (expected ≥ 1000 tokens/s)");
    expect(v.checks[0].measured).toBeNull();
  });

  test("a threshold at a size the sweep did not reach is an error naming the sizes measured", () => {
    const v = judgeUnit([{ ...busbw400, at: 16 * GiB, text: "busbw@16GiB >= 400" }], done(collective(450)));
    expect(v.outcome).toBe("error");
    expect(v.reason).toBe("no busbw row at 16 GiB (sizes measured: 1 GiB to 8 GiB) (expected ≥ 400 GB/s)");
  });
});

describe("judgeUnit: relative thresholds", () => {
  const rel: Expectation = { metric: "busbw", unit: "GB/s", baselineRatio: 0.95, text: "busbw >= 95% of baseline" };

  test("against the baseline's same metric at the same size", () => {
    const v = judgeUnit([rel], done(collective(300)), collective(400));
    expect(v.outcome).toBe("failed");
    expect(v.reason).toBe("busbw 300 GB/s at 8 GiB < 380 GB/s expected (95% of baseline 400 GB/s) (-21%)");
    expect(judgeUnit([rel], done(collective(390)), collective(400)).outcome).toBe("passed");
  });

  test("lower-is-better metrics may grow to baseline / ratio: 95% of the baseline's performance", () => {
    const e: Expectation = { metric: "step_time_ms", unit: "ms", baselineRatio: 0.8, text: "step_time_ms: baseline 80%" };
    const v = judgeUnit([e], done({ metrics: { step_time_ms: 130 } }), { metrics: { step_time_ms: 100 } });
    expect(v.reason).toBe("step_time_ms 130 ms > 125 ms expected (baseline 100 ms / 80%) (+4%)");
    expect(judgeUnit([e], done({ metrics: { step_time_ms: 124 } }), { metrics: { step_time_ms: 100 } }).outcome).toBe("passed");
  });

  test("no baseline given: error with what to do", () => {
    const v = judgeUnit([rel], done(collective(300)));
    expect(v.outcome).toBe("error");
    expect(v.reason).toBe('busbw: "busbw >= 95% of baseline" is relative to a baseline but none was given (pass --baseline <results.json>)');
  });

  test("baseline without this test: error", () => {
    expect(judgeUnit([rel], done(collective(300)), null).reason).toBe("busbw: the baseline run has no result for this test and unit to compare with");
  });

  test("baseline without the metric at that size: error", () => {
    const v = judgeUnit([rel], done(collective(300)), { metrics: {}, bySize: { busbw: [[GiB, 10]] } });
    expect(v.reason).toBe("busbw: the baseline has no busbw at 8 GiB to compare with");
  });
});

describe("skipped, aggregation, exit codes, headline", () => {
  test("a skipped unit keeps the platform's reason", () => {
    expect(judgeUnit([busbw400], { status: "skipped", message: "node gpu-04 is drained", measurement: null })).toEqual({
      outcome: "skipped",
      reason: "node gpu-04 is drained",
      checks: [],
    });
  });

  test("error > failed > passed > skipped", () => {
    expect(aggregateOutcome(["passed", "failed", "skipped"])).toBe("failed");
    expect(aggregateOutcome(["failed", "error", "passed"])).toBe("error");
    expect(aggregateOutcome(["skipped", "passed"])).toBe("passed");
    expect(aggregateOutcome(["skipped", "skipped"])).toBe("skipped");
    expect(aggregateOutcome([])).toBe("skipped");
    const unit = (outcome: "passed" | "failed") => ({ verdict: { outcome, reason: "", checks: [] } }) as unknown as UnitResult;
    expect(judgeTest([unit("passed"), unit("failed")])).toBe("failed");
  });

  test("exit codes: 0 passed or skipped, 1 failed, 3 error", () => {
    expect([exitCodeFor("passed"), exitCodeFor("skipped"), exitCodeFor("failed"), exitCodeFor("error")]).toEqual([0, 0, 1, 3]);
  });

  test("headline per kind, in the threshold's unit", () => {
    expect(headlineOf("collective", [])).toEqual({ metric: "busbw", unit: "GB/s" });
    expect(headlineOf("train", [])).toEqual({ metric: "samples_per_s", unit: "samples/s" });
    expect(headlineOf("inventory", [])).toEqual({ metric: "gpu_count", unit: "count" });
  });

  test("the headline is what the test judges when it sets no threshold on the kind's own headline", () => {
    // gpu-1x's transformer bounds TFLOP/s and telemetry: its line showed samples/s with no threshold
    const tflops: Expectation = { metric: "tflops", unit: "TFLOP/s", min: 148, text: "tflops: min 148 TFLOP/s" };
    const xid: Expectation = { metric: "xid_hardware", unit: "count", max: 0, text: "xid_hardware: max 0" };
    expect(headlineOf("train", [xid, tflops])).toEqual({ metric: "tflops", unit: "TFLOP/s" });
    // telemetry alone (not the kind's own metric) leaves the kind's headline
    expect(headlineOf("train", [xid])).toEqual({ metric: "samples_per_s", unit: "samples/s" });
    const sps: Expectation = { metric: "samples_per_s", unit: "img/s", min: 1950, text: "samples_per_s: min 1950 img/s" };
    expect(headlineOf("train", [tflops, sps])).toEqual({ metric: "samples_per_s", unit: "img/s" });
  });
});

test("a platform message that already says what happened is not repeated", () => {
  const v = judgeUnit([], { status: "timeout", message: "timed out after 4s: killed rank 0 (pid 1)", measurement: null });
  expect(v.reason).toBe("timed out after 4s: killed rank 0 (pid 1)");
});

test("a value exactly on a bound has no margin to state", () => {
  const e: Expectation = { metric: "xid_events", unit: "count", max: 0, text: "xid_events: max 0" };
  expect(judgeUnit([e], done({ metrics: { xid_events: 0 } })).checks[0].message).toBe("xid_events 0 ≤ 0 expected");
});
