// Per-component thresholds and the outlier rule (lib/assess/components.ts through judgeUnit): each
// part judged on its own and named, the median it was compared with, and every case that cannot be
// judged an error, never a pass. The parts are written here in gemm's shape (no GPU ran them).
import { describe, expect, test } from "bun:test";
import { judgeUnit } from "../../lib/assess/judge.ts";
import { partChecks, partOutcome } from "../../lib/assess/part-checks.ts";
import type { ComponentValues, Expectation, Measurement, MetricCheck, UnitResult } from "../../lib/core/types.ts";

const gpu = (host: string, index: number, tflops: number | null, why?: string): ComponentValues => ({
  part: { type: "gpu", host, rank: index, index, uuid: `GPU-${host}-${index}`, pciBusId: `00000000:${18 + index}:00.0` },
  metrics: { gemm_bf16_tflops: tflops },
  ...(why && { unmeasured: { gemm_bf16_tflops: why } }),
});
const node = (...parts: ComponentValues[]): Measurement => ({
  metrics: { gemm_bf16_tflops_min: Math.min(...parts.map((p) => p.metrics.gemm_bf16_tflops ?? 0)) },
  components: parts,
});
const done = (m: Measurement) => ({ status: "completed" as const, measurement: m });
const floor: Expectation = { metric: "gemm_bf16_tflops", unit: "TFLOP/s", min: 700, perComponent: true, text: "gemm_bf16_tflops: min 700 TFLOP/s" };
const outlier = (ratio: number, over: "unit" | "fleet" = "unit", side: "below" | "above" = "below"): Expectation => ({
  metric: "gemm_bf16_tflops",
  unit: "TFLOP/s",
  perComponent: true,
  outlier: { side, ratio, over },
  text: `gemm_bf16_tflops: outlier ${side} ${ratio}${over === "fleet" ? " over fleet" : ""}`,
});
const messages = (checks: unknown[]) => (checks as MetricCheck[]).map((c) => c.message);

describe("per-component floors", () => {
  test("one check per GPU, each naming its part; the slow one fails with its value and margin", () => {
    const v = judgeUnit([floor], done(node(gpu("node1", 0, 780.5), gpu("node1", 3, 512.3))));
    expect(v.outcome).toBe("failed");
    expect(messages(v.checks)).toEqual([
      "node1 GPU 0 (GPU-node1-0, 00000000:18:00.0): gemm_bf16_tflops 780.5 TFLOP/s ≥ 700 TFLOP/s expected (+12%)",
      "node1 GPU 3 (GPU-node1-3, 00000000:21:00.0): gemm_bf16_tflops 512.3 TFLOP/s < 700 TFLOP/s expected (-27%)",
    ]);
    expect(v.reason).toBe("node1 GPU 3 (GPU-node1-3, 00000000:21:00.0): gemm_bf16_tflops 512.3 TFLOP/s < 700 TFLOP/s expected (-27%)");
    expect((v.checks[1] as MetricCheck).part).toEqual({ type: "gpu", host: "node1", rank: 3, index: 3, uuid: "GPU-node1-3", pciBusId: "00000000:21:00.0" });
  });

  test("a GPU whose value is null is an error with its reason, never a pass", () => {
    const v = judgeUnit([floor], done(node(gpu("node1", 0, 780), gpu("node1", 1, null, "bf16: CUDA error: an illegal memory access was encountered"))));
    expect(v.outcome).toBe("error");
    expect(v.reason).toBe(
      "node1 GPU 1 (GPU-node1-1, 00000000:19:00.0): gemm_bf16_tflops unmeasured: bf16: CUDA error: an illegal memory access was encountered (expected ≥ 700 TFLOP/s)",
    );
  });

  test("a measurement naming no part is an error saying so", () => {
    const v = judgeUnit([floor], done({ metrics: { gemm_bf16_tflops_min: 780 } }));
    expect(v.outcome).toBe("error");
    expect(v.reason).toBe("gemm_bf16_tflops not measured per component: the output names no part with this metric");
  });
});

describe("outlier: against the median of the unit's other parts", () => {
  test("the slow GPU fails with its value, the median, the ratio and the parts behind the median; the others pass", () => {
    const m = node(gpu("node1", 0, 800), gpu("node1", 1, 790), gpu("node1", 2, 810), gpu("node1", 3, 600));
    const v = judgeUnit([outlier(0.93)], done(m));
    expect(v.outcome).toBe("failed");
    expect(v.reason).toBe(
      "node1 GPU 3 (GPU-node1-3, 00000000:21:00.0): gemm_bf16_tflops 600 TFLOP/s is 0.750 × the median 800 TFLOP/s of 3 gpu parts: " +
        "node1 GPU 0 (GPU-node1-0, 00000000:18:00.0), node1 GPU 1 (GPU-node1-1, 00000000:19:00.0), node1 GPU 2 (GPU-node1-2, 00000000:20:00.0) (< 0.93 expected)",
    );
    const bad = v.checks[3] as MetricCheck;
    expect(bad).toMatchObject({ measured: 600, expected: 744, ok: false, outlier: { median: 800, ratio: 0.75 } });
    expect(bad.outlier!.from).toHaveLength(3);
    // GPU 0 against 790, 810, 600: median 790
    expect(v.checks[0]!.message).toBe(
      "node1 GPU 0 (GPU-node1-0, 00000000:18:00.0): gemm_bf16_tflops 800 TFLOP/s is 1.013 × the median 790 TFLOP/s of 3 gpu parts: " +
        "node1 GPU 1 (GPU-node1-1, 00000000:19:00.0), node1 GPU 2 (GPU-node1-2, 00000000:20:00.0), node1 GPU 3 (GPU-node1-3, 00000000:21:00.0) (≥ 0.93 expected)",
    );
    expect(v.checks.slice(0, 3).every((c) => c.ok)).toBe(true);
  });

  test("more than three peers are counted, each still listed in the check", () => {
    const m = node(...[0, 1, 2, 3, 4].map((i) => gpu("node1", i, 800 + i)));
    const v = judgeUnit([outlier(0.93)], done(m));
    expect(v.checks[0]!.message).toBe(
      "node1 GPU 0 (GPU-node1-0, 00000000:18:00.0): gemm_bf16_tflops 800 TFLOP/s is 0.997 × the median 802.5 TFLOP/s of 4 gpu parts (the others of its unit) (≥ 0.93 expected)",
    );
    expect((v.checks[0] as MetricCheck).outlier!.from).toHaveLength(4);
  });

  test("a unit with one part cannot compare: an error check that says so, never a pass", () => {
    const v = judgeUnit([outlier(0.93)], done(node(gpu("node1", 0, 800))));
    expect(v.outcome).toBe("error");
    expect(v.reason).toBe(
      "node1 GPU 0 (GPU-node1-0, 00000000:18:00.0): gemm_bf16_tflops outlier rule cannot be judged: 1 gpu part measured gemm_bf16_tflops in this unit, at least 2 needed to compare",
    );
  });

  test("a part whose peers are all unmeasured cannot compare either; the unmeasured part is an error with its reason", () => {
    const v = judgeUnit([outlier(0.93)], done(node(gpu("node1", 0, 800), gpu("node1", 1, null, "bf16: out of memory"))));
    expect(v.outcome).toBe("error");
    expect(messages(v.checks)).toEqual([
      "node1 GPU 0 (GPU-node1-0, 00000000:18:00.0): gemm_bf16_tflops outlier rule cannot be judged: 1 gpu part measured gemm_bf16_tflops in this unit, at least 2 needed to compare",
      "node1 GPU 1 (GPU-node1-1, 00000000:19:00.0): gemm_bf16_tflops unmeasured: bf16: out of memory (outlier rule: fails below 0.93 × the median of the other gpu parts of its unit)",
    ]);
  });

  test("parts of another type are not peers", () => {
    const cpu: ComponentValues = { part: { type: "cpu", host: "node1", rank: 1 }, metrics: { gemm_bf16_tflops: 0.005 } };
    const v = judgeUnit([outlier(0.93)], done(node(gpu("node1", 0, 800), cpu)));
    expect(v.outcome).toBe("error");
    expect(v.checks[1]!.message).toBe(
      "node1 rank 1 (CPU): gemm_bf16_tflops outlier rule cannot be judged: 1 cpu part measured gemm_bf16_tflops in this unit, at least 2 needed to compare",
    );
  });

  test("a lower-is-better metric fails above ratio × the median", () => {
    const m = node(gpu("node1", 0, 10), gpu("node1", 1, 10), gpu("node1", 2, 12));
    const v = judgeUnit([outlier(1.1, "unit", "above")], done(m));
    expect(v.outcome).toBe("failed");
    expect(v.reason).toBe(
      "node1 GPU 2 (GPU-node1-2, 00000000:20:00.0): gemm_bf16_tflops 12 TFLOP/s is 1.200 × the median 10 TFLOP/s of 2 gpu parts: node1 GPU 0 (GPU-node1-0, 00000000:18:00.0), node1 GPU 1 (GPU-node1-1, 00000000:19:00.0) (> 1.1 expected)",
    );
  });

  test("combined with a floor: both checks per part", () => {
    const v = judgeUnit([{ ...outlier(0.93), min: 700, text: "gemm_bf16_tflops: min 700, outlier below 0.93" }], done(node(gpu("node1", 0, 800), gpu("node1", 1, 650))));
    expect(v.checks.map((c) => [c.message.slice(0, 11), c.ok])).toEqual([
      ["node1 GPU 0", true],
      ["node1 GPU 0", true],
      ["node1 GPU 1", false],
      ["node1 GPU 1", false],
    ]);
  });
});

describe("outlier over: fleet", () => {
  test("each part against the median of every part of every unit, with the MAD", () => {
    const a = node(gpu("node1", 0, 800), gpu("node1", 1, 790));
    const b = node(gpu("node2", 0, 810), gpu("node2", 1, 500));
    const fleet = [a, b];
    const va = judgeUnit([outlier(0.9, "fleet")], done(a), undefined, fleet);
    const vb = judgeUnit([outlier(0.9, "fleet")], done(b), undefined, fleet);
    expect(va.outcome).toBe("passed");
    expect(vb.outcome).toBe("failed");
    // the fleet: 500, 790, 800, 810 → median 795, deviations 295, 5, 5, 15 → MAD 10
    expect(vb.reason).toBe(
      "node2 GPU 1 (GPU-node2-1, 00000000:19:00.0): gemm_bf16_tflops 500 TFLOP/s is 0.629 × the median 795 TFLOP/s of 4 gpu parts (every part of the test), MAD 10 TFLOP/s (< 0.9 expected)",
    );
    expect((vb.checks[1] as MetricCheck).outlier).toMatchObject({ median: 795, mad: 10 });
  });

  test("a unit that was not measured adds nothing to the fleet", () => {
    const a = node(gpu("node1", 0, 800));
    const v = judgeUnit([outlier(0.9, "fleet")], done(a), undefined, [a, null]);
    expect(v.reason).toBe(
      "node1 GPU 0 (GPU-node1-0, 00000000:18:00.0): gemm_bf16_tflops outlier rule cannot be judged: 1 gpu part measured gemm_bf16_tflops in the whole test, at least 2 needed to compare",
    );
  });
});

describe("partChecks", () => {
  test("groups a unit's checks by part: an unjudged check makes the part an error, a missed one failed", () => {
    const verdict = judgeUnit([floor, outlier(0.93)], done(node(gpu("node1", 0, 800), gpu("node1", 1, 650), gpu("node1", 2, null, "lost"))));
    const u = { verdict } as UnitResult;
    expect(partChecks(u).map((p) => [p.part.index, p.checks.length, partOutcome(p.checks)])).toEqual([
      [0, 2, "passed"],
      [1, 2, "failed"],
      [2, 2, "error"],
    ]);
  });
});
