// kind: collective: an nccl-tests style sweep of one collective over message sizes, by gpucheck's
// own benchmark or the official binaries, judged on bus bandwidth and #wrong; with `rails:` once per
// HCA, each rail a nic part judged by name.
import { ncclRankDevices } from "../../parsers/nccl-devices.ts";
import * as z from "../../core/schema.ts";
import { ParseError } from "../../core/errors.ts";
import { higher, lower } from "../../core/metrics.ts";
import { ncclMeasurement, parseNccl } from "../../parsers/nccl.ts";
import { transportFromLogs } from "../../parsers/nccl-transport.ts";
import type { KindBlocks, TestSpec } from "../../core/types.ts";
import { type CollectiveParams, collectiveBlock, notInSweep, resolveCollective, sweep } from "./params.ts";
import { railsArg } from "./rails.ts";
import { railsMeasurement } from "../../parsers/nccl-rails.ts";
import type { TestKind } from "../../core/kind.ts";

export type { CollectiveOp, CollectiveParams } from "./params.ts";

declare module "../../core/types.ts" {
  interface KindBlocks {
    collective: { collective: CollectiveParams };
  }
}

export const collective: TestKind<"collective", CollectiveParams, KindBlocks["collective"]> = {
  name: "collective",
  summary: "an nccl-tests sweep of one collective over message sizes (gpucheck's benchmark on torch.distributed, or the official binaries)",
  block: z.lazy(collectiveBlock),
  keys: [
    { key: "op", default: "all_reduce", doc: "all_gather, reduce_scatter, alltoall, broadcast" },
    { key: "minBytes", default: "8B", doc: "the sweep's first size: bytes, or B, K/KiB, M/MiB, G/GiB, T/TiB (binary, as nccl-tests), KB, MB, GB, TB (decimal)" },
    { key: "maxBytes", default: "8GiB (16MiB when gpusPerNode is 0)", doc: "the sweep's last size: must be minBytes × factor^k" },
    { key: "factor", default: "2", doc: "the sweep: minBytes × factor^k up to maxBytes" },
    { key: "iters", default: "20", doc: "timed calls per size and placement" },
    { key: "warmup", default: "5", doc: "untimed calls per size first" },
    { key: "dtype", default: "float", doc: "half, bfloat16, double, int32" },
    { key: "check", default: "true", doc: "count wrong values (#wrong)" },
    {
      key: "checkIters",
      default: "iters (1 when gpusPerNode is 0)",
      doc: "checked calls per size and placement, each from its own fill, their wrong values summed (nccl-tests -c): a fault in one call of many is seen",
    },
    { key: "backend", default: "auto", doc: "nccl with GPUs, gloo without; or nccl | gloo" },
    { key: "impl", default: "workload", doc: "gpucheck's benchmark, or nccl-tests (the official binaries; needs GPUs)" },
    { key: "ncclTestsDir", doc: "with impl nccl-tests: the directory holding all_reduce_perf & co (default: PATH)" },
    {
      key: "rails",
      doc: 'HCAs ([mlx5_0, mlx5_3] or "mlx5_0,mlx5_3"): the sweep once per HCA, each run a child process per rank with NCCL_IB_HCA==<hca> (and NCCL_NET=IB unless the test names another IB network), one nic part per rail; "auto": every InfiniBand port of node 0 (a storage HCA on InfiniBand too: list the compute ones where that matters). Needs NCCL',
    },
  ],
  perNode: false,
  resolve: (block, ctx) => ({ collective: resolveCollective(block ?? {}, ctx) }),
  params: (spec: TestSpec) => spec.collective,
  metrics: {
    busbw: higher("GB/s", "bus bandwidth (nccl-tests busbw, the better of out-of-place and in-place); without @size: at the largest size", { perSize: true }),
    algbw: higher("GB/s", "algorithm bandwidth: bytes / time", { perSize: true }),
    time_us: lower("us", "time per operation", { perSize: true }),
    busbw_peak: higher("GB/s", "the highest bus bandwidth over all sizes"),
    busbw_avg: higher("GB/s", 'nccl-tests "Avg bus bandwidth": mean over all sizes'),
    wrong: lower("count", "values that failed the data check (#wrong), summed over sizes"),
    out_of_bounds: lower("count", 'nccl-tests "Out of bounds values"'),
  },
  // with `rails:`, each rail's own run (Measurement.components, part type "nic", name = the HCA)
  componentMetrics: {
    rail_busbw: higher(
      "GB/s",
      "with rails: busbw at the largest size of the run through this HCA alone, counted only when every rank's NCCL INFO shows its connections on NET/IB through that HCA and no other; a transport threshold is judged per rail",
    ),
  },
  headline: "busbw",
  metricProblem: (metric, _info, p, sound) =>
    metric === "rail_busbw" && p && p.rails === undefined && sound("collective.rails")
      ? { message: `metric "rail_busbw" needs "rails" in the collective block`, key: "rails" }
      : undefined,
  sizeProblem: (bytes, sizeText, key, p, sound) =>
    p && !sweep(p).includes(bytes) && sound("collective.minBytes", "collective.maxBytes", "collective.factor", "gpusPerNode") ? notInSweep(bytes, sizeText, key, p) : undefined,
  transport: (p, ctx) => {
    if (p?.backend === "gloo" && ctx.sound("collective.backend")) {
      return { message: `needs NCCL, but backend is "gloo": NCCL never runs, so its transport is never known`, also: [[...ctx.testAt, "collective", "backend"]] };
    }
    if (p?.backend === "auto" && ctx.gpusPerNode === 0 && ctx.sound("gpusPerNode")) {
      return { message: `needs NCCL, but "gpusPerNode" is 0: the collective runs on gloo, so its transport is never known`, also: ctx.gpusAt };
    }
    return undefined;
  },
  telemetry: true,
  processGroup: true,
  args: (c) =>
    c
      ? [
          "collective",
          "--op",
          c.op,
          "--min-bytes",
          String(c.minBytes),
          "--max-bytes",
          String(c.maxBytes),
          "--factor",
          String(c.factor),
          "--iters",
          String(c.iters),
          "--warmup",
          String(c.warmup),
          "--dtype",
          c.dtype,
          "--backend",
          c.backend,
          "--impl",
          c.impl,
          ...(c.check ? ["--check-iters", String(c.checkIters)] : ["--no-check"]),
          ...(c.ncclTestsDir ? ["--nccl-tests-dir", c.ncclTestsDir] : []),
          ...(c.rails ? ["--rails", railsArg(c.rails)] : []),
        ]
      : ["collective"],
  measure: (output, { logs, params }) => {
    if (params?.rails) return railsMeasurement(output, logs);
    const report = parseNccl(output);
    if (report.rows.length === 0) {
      throw new ParseError(report.failure ? `no results: ${report.failure}` : "no nccl-tests result rows in the output");
    }
    const m = ncclMeasurement(report);
    // the judge never passes an nccl-tests log that stopped before its footer
    m.metrics.complete = report.complete ? 1 : 0;
    const t = transportFromLogs(logs?.some((l) => l !== "") ? logs : [output]);
    if (t.transport) m.transport = t.transport;
    if (t.unmeasured) m.unmeasured = { ...m.unmeasured, transport: t.unmeasured };
    const devices = ncclRankDevices(output);
    if (devices) m.devices = devices;
    return m;
  },
  plots: (test, ctx) => {
    const series = ctx.series((u) => u.measurement?.bySize?.busbw);
    if (series.length === 0) return [];
    return [
      ctx.plot("busbw", {
        kind: "busbw",
        title: `${test.name}: bus bandwidth by message size`,
        xLabel: "message size",
        yLabel: "busbw (GB/s)",
        xScale: "log2",
        xBytes: true,
        series,
      }),
    ];
  },
  needs: (t, c) => {
    if (c?.impl === "nccl-tests") {
      // the binaries carry their own NCCL; they find <op>_perf as workload/gpucheck_workload/nccl_tests.py does
      return { torch: false, gpus: t.gpusPerNode, gpuSource: "nvidia-smi", nccl: false, tools: [`nccl-tests:${c.op}${c.ncclTestsDir ? `:${c.ncclTestsDir}` : ""}`] };
    }
    if (!c) return { torch: false, gpus: 0, nccl: false };
    return { torch: true, gpus: t.gpusPerNode, nccl: c.backend === "nccl" || (c.backend === "auto" && t.gpusPerNode > 0) };
  },
  resultSource: "rank 0's nccl-tests table (gpucheck's benchmark prints the official layout) as lib/parsers/nccl.ts reads it",
};
