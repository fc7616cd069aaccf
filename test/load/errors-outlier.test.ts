// Per-component thresholds and `outlier:` in expect: each bad input and exactly what `gpucheck validate` prints.
import { describe, expect, test } from "bun:test";
import { higher, lower } from "../../lib/core/metrics.ts";
import { resolveOutlier } from "../../lib/load/outlier.ts";
import type { PathKey } from "../../lib/load/schema.ts";
import { load, rejects } from "./_load.ts";

const gemm = (expectYaml: string) => `
name: s
tests:
  - name: a
    kind: gemm
    gemm: { dtypes: [bf16, fp32] }
    expect:
      ${expectYaml}
`;

describe("outlier thresholds", () => {
  rejects([
    [
      "below out of range",
      gemm("gemm_bf16_tflops: { outlier: { below: 1.2 } }"),
      `
suite.yaml:7:45: "below" must be between 0 and 1 (exclusive), such as 0.93, got 1.2
        gemm_bf16_tflops: { outlier: { below: 1.2 } }
                                              ^
`,
    ],
    [
      "above on a higher-is-better metric",
      gemm("gemm_bf16_tflops: { outlier: { above: 1.1 } }"),
      `
suite.yaml:7:38: "above" does not apply to "gemm_bf16_tflops" (higher is better: a bad part is below the median): write "below"
        gemm_bf16_tflops: { outlier: { above: 1.1 } }
                                       ^
`,
    ],
    [
      "an unknown over",
      gemm("gemm_bf16_tflops: { outlier: { below: 0.9, over: fleets } }"),
      `
suite.yaml:7:56: unknown "over" "fleets" (unit: the other parts of the same unit; fleet: every part of the test): did you mean "fleet"?
        gemm_bf16_tflops: { outlier: { below: 0.9, over: fleets } }
                                                         ^
`,
    ],
    [
      "fleet rule: over unit on a metric that is one value per unit",
      `
name: s
tests:
  - name: a
    kind: train
    expect:
      samples_per_s: { outlier: { over: unit } }
`,
      `
suite.yaml:6:41: "over: unit" does not apply to "samples_per_s", one value per unit: each node of a per-node test is compared with the test's nodes ("over: fleet")
        samples_per_s: { outlier: { over: unit } }
                                          ^
`,
    ],
    [
      "fleet rule: the wrong side for the metric's direction",
      `
name: s
tests:
  - name: a
    kind: train
    expect:
      samples_per_s: { outlier: { above: 1.1 } }
`,
      `
suite.yaml:6:35: "above" does not apply to "samples_per_s" (higher is better: a bad node is below the median): write "below"
        samples_per_s: { outlier: { above: 1.1 } }
                                    ^
`,
    ],
    [
      "fleet rule: a ratio out of range",
      `
name: s
tests:
  - name: a
    kind: train
    expect:
      samples_per_s: { outlier: { below: 1.5 } }
`,
      `
suite.yaml:6:42: "below" must be between 0 and 1 (exclusive), such as 0.9, got 1.5
        samples_per_s: { outlier: { below: 1.5 } }
                                           ^
`,
    ],
    [
      "fleet rule: a MAD count out of range",
      `
name: s
tests:
  - name: a
    kind: train
    expect:
      samples_per_s: { outlier: { mad: 0.5 } }
`,
      `
suite.yaml:6:40: "mad" must be between 1 and 10 scaled MADs, such as 3, got 0.5
        samples_per_s: { outlier: { mad: 0.5 } }
                                         ^
`,
    ],
    [
      "fleet rule: a ratio and a MAD count at once",
      `
name: s
tests:
  - name: a
    kind: train
    expect:
      samples_per_s: { outlier: { below: 0.9, mad: 3 } }
`,
      `
suite.yaml:6:24: "below" and "mad" are two rules for one outlier: give one (below: a ratio to the median; mad: scaled MADs from it)
        samples_per_s: { outlier: { below: 0.9, mad: 3 } }
                         ^
`,
    ],
    [
      "a MAD count on a per-component metric",
      `
name: s
tests:
  - name: a
    kind: gemm
    gpusPerNode: 8
    expect:
      gemm_bf16_tflops: { outlier: { below: 0.9, mad: 3 } }
`,
      `
suite.yaml:7:50: "mad" applies to metrics with one value per unit (each node of a per-node test against the others); "gemm_bf16_tflops" is per component: use "below"
        gemm_bf16_tflops: { outlier: { below: 0.9, mad: 3 } }
                                                   ^
`,
    ],
    [
      "an empty outlier",
      gemm("gemm_bf16_tflops: { outlier: {} }"),
      `
suite.yaml:7:27: "outlier" needs "below" (the ratio to the median that fails a part), e.g. { below: 0.93 }
        gemm_bf16_tflops: { outlier: {} }
                            ^
`,
    ],
    [
      "a per-component metric with no bound",
      gemm("gemm_bf16_median: {}"),
      `
suite.yaml:7:7: threshold on "gemm_bf16_median" needs "min", "max" or "outlier"
        gemm_bf16_median: {}
        ^
`,
    ],
    [
      "baseline on a per-component metric",
      gemm("gemm_bf16_tflops: { baseline: 95% }"),
      `
suite.yaml:7:27: "baseline" does not apply to "gemm_bf16_tflops": it is measured per component; compare the parts with "outlier"
        gemm_bf16_tflops: { baseline: 95% }
                            ^
`,
    ],
    [
      "a per-component metric of a dtype the test does not run",
      gemm("gemm_fp16_tflops: { outlier: { below: 0.9 } }"),
      `
suite.yaml:7:7: metric "gemm_fp16_tflops" needs dtype "fp16" in "dtypes"
        gemm_fp16_tflops: { outlier: { below: 0.9 } }
        ^
`,
    ],
    [
      "outlier that is not a map",
      gemm("gemm_bf16_tflops: { outlier: 0.9 }"),
      `
suite.yaml:7:36: "outlier" must be a map such as { below: 0.93 }, got 0.9
        gemm_bf16_tflops: { outlier: 0.9 }
                                     ^
`,
    ],
  ]);

  test("a valid rule resolves to the expectation the judge reads", async () => {
    const s = await load({ "suite.yaml": gemm("gemm_bf16_tflops: { min: 700 TFLOP/s, outlier: { below: 0.93, over: fleet } }").slice(1) });
    expect(s.tests[0]!.expect).toEqual([
      {
        metric: "gemm_bf16_tflops",
        unit: "TFLOP/s",
        min: 700,
        perComponent: true,
        outlier: { side: "below", ratio: 0.93, over: "fleet" },
        text: "gemm_bf16_tflops: min 700 TFLOP/s, outlier below 0.93 over fleet",
      },
    ]);
  });
});

describe("resolveOutlier on a lower-is-better metric", () => {
  const run = (o: Record<string, unknown>, better: "higher" | "lower" = "lower") => {
    const got: string[] = [];
    const rule = resolveOutlier(
      o,
      "link_latency_us",
      better === "lower" ? lower("us", "latency") : higher("GB/s", "bw"),
      ["tests", 0, "expect", "x", "outlier"],
      (path: PathKey[], message: string) => got.push(`${path.join(".")}: ${message}`),
    );
    return { rule, got };
  };
  test("below is refused, naming the key to write", () => {
    expect(run({ below: 0.9 }).got).toEqual([
      'tests.0.expect.x.outlier.below: "below" does not apply to "link_latency_us" (lower is better: a bad part is above the median): write "above"',
    ]);
  });
  test("above must be over 1 and at most 10", () => {
    expect(run({ above: 0.9 }).got).toEqual(['tests.0.expect.x.outlier.above: "above" must be above 1 and at most 10, such as 1.1, got 0.9']);
    expect(run({ above: 11 }).got).toEqual(['tests.0.expect.x.outlier.above: "above" must be above 1 and at most 10, such as 1.1, got 11']);
  });
  test("a good one: side above, over unit by default", () => {
    expect(run({ above: 1.2 })).toEqual({ rule: { side: "above", ratio: 1.2, over: "unit" }, got: [] });
  });
});
