// kind: burn: a sustained load on every rank at once for a duration (GEMM + memory copy + all-reduce
// each iteration), judged for stability: stragglers, slowdown from the first to the last minute,
// the rate of clock events; each rank's sustained TFLOP/s a component for the outlier rule.
import * as z from "../../core/schema.ts";
import { higher, lower, type MetricInfo } from "../../core/metrics.ts";
import { burnMeasurement, STRAGGLER_CV, STRAGGLER_MAX_AVG } from "./parse.ts";
import { LOADED_UTIL_PCT } from "../../parsers/telemetry-health.ts";
import type { PlotSpec } from "../../core/plot-svg.ts";
import type { KindBlocks, TestSpec } from "../../core/types.ts";
import { type BurnParams, burnBlock, resolveBurn } from "./params.ts";
import { type TestKind, torchOnEveryGpu } from "../../core/kind.ts";

export type { BurnParams } from "./params.ts";

const OWN = "an iteration's time is the rank's own work, multiply and copy: the all-reduce waits for the slowest rank, so it is timed apart";
const RULE = `CV > ${STRAGGLER_CV * 100} % or max/avg > ${STRAGGLER_MAX_AVG}`;

const metrics: Record<string, MetricInfo> = {
  burn_stragglers: lower("count", `ranks whose iteration times are unstable (${RULE}; ${OWN}), each named with its CV and max/avg`),
  burn_slowdown_pct: lower(
    "%",
    "GEMM TFLOP/s lost from the first to the last minute of the run (a tenth of a run under two minutes), the worst rank named; negative when it sped up",
  ),
  burn_iter_cv_max: lower("%", `the highest per-rank coefficient of variation of the iteration times (${OWN})`),
  burn_checksum_mismatches: lower(
    "count",
    "checks at which a rank's product of identical seeded inputs differed from its own first or from its GPU model's majority, summed over ranks (silent data corruption under load), each rank named with when",
  ),
  burn_clock_events_rate: lower(
    "",
    "clock events per minute during the run on the GPU with the most (a clock event reason, nvmlClocksEventReasons less gpu_idle, becoming active in the telemetry samples), each GPU's reasons in the details",
  ),
};

// each rank's own values (Measurement.components): per-GPU thresholds, and the outlier rule against
// the node's other GPUs, so a GPU that sags under sustained load is named
const componentMetrics: Record<string, MetricInfo> = {
  burn_iter_cv: lower("%", "this rank's coefficient of variation of its iteration times"),
  burn_iter_max_avg: lower("", "this rank's slowest iteration over its mean"),
  burn_gemm_tflops: higher("TFLOP/s", "this rank's GEMM TFLOP/s over the whole run (bf16 on GPUs from compute capability 8.0, fp32 otherwise)"),
  burn_copy_gbps: higher("GB/s", "this rank's copy GB/s over the whole run (read + write, 1 GB = 1e9 bytes)"),
  burn_gemm_slowdown_pct: lower("%", "this rank's GEMM TFLOP/s lost from the first to the last minute"),
  burn_gpu_checksum_mismatches: lower("count", "checks at which this rank's seeded product differed from its own first or its model's majority"),
  // from the telemetry samples of this rank's GPU (matched by host and PCI bus id) during the burn
  burn_gpu_sm_clock_mhz: higher("MHz", `this GPU's median SM clock over the samples where it was ≥ ${LOADED_UTIL_PCT} % busy`),
  burn_gpu_temp_max_c: lower("C", "this GPU's highest temperature during the burn"),
  burn_gpu_power_mean_w: higher("W", `this GPU's mean power draw over the samples where it was ≥ ${LOADED_UTIL_PCT} % busy`),
  burn_gpu_throttle_hw: lower("count", "HW slowdown, HW thermal slowdown and HW power brake: how many of these held this GPU's clocks down during the burn"),
  burn_gpu_throttle_sw_thermal: lower("count", "1 when SW thermal slowdown held this GPU's clocks down during the burn (it ran too hot), else 0"),
};

declare module "../../core/types.ts" {
  interface KindBlocks {
    burn: { burn: BurnParams };
  }
}

export const burn: TestKind<"burn", BurnParams, KindBlocks["burn"]> = {
  name: "burn",
  summary: "sustained GEMM + memory copy + all-reduce on every rank for a duration: stragglers (CV, max/avg), slowdown first vs last minute, clock events per minute",
  block: z.lazy(burnBlock),
  keys: [
    { key: "duration", default: "10m (20s when gpusPerNode is 0)", doc: "how long the load runs after a 3-iteration warm-up; the test's timeout must leave room for it" },
    { key: "gemmSize", default: "8192 (256 when gpusPerNode is 0)", doc: "M=N=K of each iteration's multiply (bf16 on GPUs from compute capability 8.0, fp32 otherwise)" },
    { key: "copySize", default: "1GiB (16MiB when gpusPerNode is 0)", doc: "bytes copied per iteration (device to device)" },
    { key: "allreduceSize", default: "256MiB (1MiB when gpusPerNode is 0)", doc: "bytes all-reduced per iteration (NCCL on GPUs, gloo on CPUs)" },
    { key: "window", default: "10s", doc: "the iteration times are kept as one summary per window (and the first 1000 as they are)" },
    {
      key: "checksumEvery",
      default: "100",
      doc: "iterations between two checksums: every rank multiplies the same seeded inputs and the products' bits are compared with the rank's own first and across ranks (≈0.5 s apart on an H100)",
    },
    { key: "checksumSize", default: "4096 (256 when gpusPerNode is 0)", doc: "M=N=K of the checksum's product (the burn's dtype: bf16 on GPUs from compute capability 8.0)" },
  ],
  perNode: false,
  resolve: (block, ctx) => ({ burn: resolveBurn(block, ctx) }),
  params: (spec: TestSpec) => spec.burn,
  metrics,
  componentMetrics,
  headline: "burn_iter_cv_max",
  telemetry: true,
  processGroup: true,
  args: (p) =>
    p
      ? [
          "burn",
          "--duration",
          String(p.duration / 1000),
          "--gemm-size",
          String(p.gemmSize),
          "--copy-size",
          String(p.copySize),
          "--allreduce-size",
          String(p.allreduceSize),
          "--window",
          String(p.window / 1000),
          "--checksum-every",
          String(p.checksumEvery),
          "--checksum-size",
          String(p.checksumSize),
        ]
      : ["burn"],
  measure: (output, { logs }) => burnMeasurement(output, logs),
  plots: (test, ctx) => {
    // each rank's mean iteration time per window: a GPU that slows as it heats shows as a rising line
    const series = test.units.flatMap((u) => {
      const raw = u.measurement?.raw as { ranks?: Array<{ host: string; rank: number; windows?: Array<{ start_s: number; mean_s: number | null }> }> } | undefined;
      return (raw?.ranks ?? []).map((r) => ({
        name: `${r.host} rank ${r.rank}`,
        points: (r.windows ?? []).filter((w) => w.mean_s !== null).map((w) => [w.start_s, (w.mean_s as number) * 1e3] as [number, number]),
      }));
    });
    if (series.every((s) => s.points.length === 0)) return [];
    const plot: PlotSpec = {
      id: ctx.id("burn_iter_ms"),
      kind: "burn_iter_ms",
      title: `${test.name}: mean iteration time (multiply + copy) per window`,
      xLabel: "seconds into the run",
      yLabel: "ms",
      xScale: "linear",
      series,
    };
    return [plot];
  },
  needs: torchOnEveryGpu,
  resultSource:
    "the GPUCHECK_RESULT line rank 0 of `gpucheck_workload burn` prints (workload/gpucheck_workload/burn.py), every rank's summary gathered, as lib/kinds/burn/parse.ts reads it",
};
