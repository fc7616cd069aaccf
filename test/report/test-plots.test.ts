// A kind's line plot carries the test's minimum on the plotted metric as a dashed line (the floor the
// curve is judged against), and only when the suite set one.
import { expect, test } from "bun:test";
import { plotsForTest } from "../../lib/report/test-plots.ts";
import type { TestResult } from "../../lib/core/types.ts";

const collective = (expect: unknown[]) =>
  ({
    name: "ar",
    kind: "collective",
    expect,
    units: [
      {
        unit: "all",
        measurement: {
          metrics: {},
          bySize: {
            busbw: [
              [1024, 1.5],
              [1048576, 9.25],
            ],
          },
        },
      },
    ],
  }) as unknown as TestResult;

test("busbw by size: a log2 byte axis, the floor as a dashed line with its size", () => {
  const [plot] = plotsForTest(collective([{ metric: "busbw", unit: "GB/s", min: 8, at: 1048576, text: "busbw >= 8 GB/s @1MiB" }]), 2);
  expect(plot).toMatchObject({ id: "plot-2-busbw", kind: "busbw", xScale: "log2", xBytes: true, threshold: { y: 8, label: "≥ 8 GB/s at 1 MiB" } });
  expect(plot!.series).toEqual([
    {
      name: "ar",
      points: [
        [1024, 1.5],
        [1048576, 9.25],
      ],
    },
  ]);
});

test("no floor on the plotted metric (a maximum only, or another metric): no line", () => {
  const [plot] = plotsForTest(
    collective([
      { metric: "busbw", unit: "GB/s", max: 100, text: "busbw <= 100 GB/s" },
      { metric: "algbw", unit: "GB/s", min: 1, text: "" },
    ]),
    0,
  );
  expect(plot!.threshold).toBeUndefined();
});

test("gemm: one linear plot per dtype measured, each with its own dtype's floor", () => {
  const gemm = {
    name: "mm",
    kind: "gemm",
    expect: [{ metric: "gemm_bf16_tflops_min", unit: "TFLOP/s", min: 600, text: "gemm_bf16_tflops_min >= 600" }],
    units: [{ unit: "all", measurement: { metrics: {}, series: { "bf16 gpu0": [{ x: 4096, y: 700 }], "fp32 gpu0": [{ x: 4096, y: 50 }] } } }],
  } as unknown as TestResult;
  const plots = plotsForTest(gemm, 1);
  expect(plots.map((p) => [p.id, p.xScale, p.threshold?.y])).toEqual([
    ["plot-1-gemm_bf16_tflops_min", "linear", 600],
    ["plot-1-gemm_fp32_tflops_min", "linear", undefined],
  ]);
  expect(plots[0]!.series).toEqual([{ name: "gpu0", points: [[4096, 700]] }]);
});
