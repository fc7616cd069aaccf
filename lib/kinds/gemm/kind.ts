// kind: gemm: matrix-multiply throughput of every GPU at once, measured as the MAMF finder does
// (shape sweep, L2 flushed, random inputs), per dtype; and an output checksum compared across GPUs.
import * as z from "../../core/schema.ts";
import { higher, lower, type MetricInfo } from "../../core/metrics.ts";
import { gemmMeasurement } from "./parse.ts";
import type { PlotSpec } from "../../core/plot-svg.ts";
import type { KindBlocks, TestSpec } from "../../core/types.ts";
import { GEMM_DTYPES, type GemmParams, gemmBlock, resolveGemm } from "./params.ts";
import { type TestKind, torchOnEveryGpu } from "../../core/kind.ts";

export type { GemmParams } from "./params.ts";

const dtypeMetrics: Record<string, MetricInfo> = Object.fromEntries(
  GEMM_DTYPES.flatMap((d) => [
    [
      `gemm_${d}_tflops_min`,
      higher(
        "TFLOP/s",
        `${d} matmul: the lowest per-GPU best TFLOP/s over the shape sweep (each GPU's best, median and best shape in the details; on CPU the details say "device: cpu")`,
      ),
    ],
    [`gemm_${d}_median_min`, higher("TFLOP/s", `${d} matmul: the lowest per-GPU median TFLOP/s over the shape sweep`)],
  ]),
);

/** Each GPU's (or CPU rank's) own figures: judged part by part, and against the node's other parts (`outlier:`). */
const componentMetrics: Record<string, MetricInfo> = Object.fromEntries(
  GEMM_DTYPES.flatMap((d) => [
    [`gemm_${d}_tflops`, higher("TFLOP/s", `${d} matmul: this GPU's best TFLOP/s over the shape sweep`)],
    [`gemm_${d}_median`, higher("TFLOP/s", `${d} matmul: this GPU's median TFLOP/s over the shape sweep`)],
  ]),
);

const METRIC_DTYPE = /^gemm_([a-z0-9]+?)_(?:tflops|median)(?:_min)?$/;

declare module "../../core/types.ts" {
  interface KindBlocks {
    gemm: { gemm: GemmParams };
  }
}

export const gemm: TestKind<"gemm", GemmParams, KindBlocks["gemm"]> = {
  name: "gemm",
  summary: "matrix-multiply TFLOP/s of every GPU at once over a MAMF-style shape sweep (bf16, fp16, tf32, fp8, fp32), and an output checksum compared across GPUs",
  block: z.lazy(gemmBlock),
  keys: [
    {
      key: "dtypes",
      default: "[bf16, fp16, tf32, fp8, fp32]",
      doc: "the dtypes measured; one a GPU or torch cannot run (fp8 before compute capability 8.9 or torch 2.1; fp16, tf32, fp8 on CPU) is unmeasured with the reason",
    },
    { key: "minSize", default: "1024 (128 when gpusPerNode is 0)", doc: "the first M=N=K of the sweep" },
    { key: "maxSize", default: "16384 (512 when gpusPerNode is 0)", doc: "the last M=N=K of the sweep" },
    { key: "step", default: "1024 (128 when gpusPerNode is 0)", doc: "the sweep: minSize, minSize + step, … up to maxSize" },
    {
      key: "warmupSeconds",
      default: "30 (1 when gpusPerNode is 0)",
      doc: "seconds of matmul on every GPU at once before the sweep, as the MAMF finder warms up (its accelerator_warmup_seconds = 30): a cold GPU scores higher than one that has been working",
    },
    {
      key: "iters",
      default: "100 (10 when gpusPerNode is 0)",
      doc: "timed calls per shape, each after an L2 flush; a shape's TFLOP/s comes from their median time (the MAMF finder's --num_iterations)",
    },
    { key: "warmup", default: "50 (3 when gpusPerNode is 0)", doc: "untimed calls per shape first (the MAMF finder's --num_warmup_iterations)" },
    { key: "checksumSize", default: "4096 (256 when gpusPerNode is 0)", doc: "M=N=K of the product (bf16 on GPUs, fp32 on CPU) whose bits every rank hashes" },
  ],
  perNode: false,
  resolve: (block, ctx) => ({ gemm: resolveGemm(block, ctx) }),
  params: (spec: TestSpec) => spec.gemm,
  metrics: {
    ...dtypeMetrics,
    gemm_checksum_mismatches: lower(
      "count",
      "ranks whose hash of the checksum product differs from the majority of the ranks with the same GPU model (silent data corruption), named in the details",
    ),
  },
  componentMetrics,
  headline: "gemm_bf16_tflops_min",
  // a CPU suite measures fp32 (and bf16), an fp8 test only fp8: the table shows what was asked for
  headlineFor: (g) => `gemm_${g?.dtypes[0] ?? "bf16"}_tflops_min`,
  metricProblem: (metric, _info, p, sound) => {
    const d = METRIC_DTYPE.exec(metric)?.[1];
    if (!p || !d || p.dtypes.includes(d as GemmParams["dtypes"][number]) || !sound("gemm.dtypes")) return undefined;
    return { message: `metric "${metric}" needs dtype "${d}" in "dtypes"`, key: "dtypes" };
  },
  telemetry: true,
  processGroup: true,
  args: (g) =>
    g
      ? [
          "gemm",
          "--dtypes",
          g.dtypes.join(","),
          "--min-size",
          String(g.minSize),
          "--max-size",
          String(g.maxSize),
          "--step",
          String(g.step),
          "--iters",
          String(g.iters),
          "--warmup",
          String(g.warmup),
          "--warmup-seconds",
          String(g.warmupSeconds),
          "--checksum-size",
          String(g.checksumSize),
        ]
      : ["gemm"],
  measure: (output, { params }) => gemmMeasurement(output, params),
  plots: (test, ctx) => {
    const plots: PlotSpec[] = [];
    for (const d of GEMM_DTYPES) {
      const series = test.units.flatMap((u) =>
        Object.entries(u.measurement?.series ?? {})
          .filter(([name]) => name.startsWith(`${d} `))
          .map(([name, points]) => ({ name: name.slice(d.length + 1), points: points.map((p) => [p.x, p.y] as [number, number]) })),
      );
      if (series.length === 0) continue;
      plots.push(ctx.plot(`gemm_${d}_tflops_min`, { kind: "gemm_tflops", title: `${test.name}: ${d} TFLOP/s by M=N=K`, xLabel: "M=N=K", yLabel: "TFLOP/s", series }));
    }
    return plots;
  },
  needs: torchOnEveryGpu,
  resultSource:
    "the GPUCHECK_RESULT line rank 0 of `gpucheck_workload gemm` prints (workload/gpucheck_workload/gemm.py), every rank's sweep and checksum gathered, as lib/kinds/gemm/parse.ts reads it",
};
