// kind: nvlink: GPU↔GPU bandwidth inside a node as a matrix: send/recv between every ordered pair of
// GPUs alone, then every pair at once, then the same with the copy engines (dst.copy_(src) from local
// rank 0), each link named by its two GPUs. NVLink error counters are not
// read here: the telemetry every kind gets already gives `nvlink_errors` (lib/core/metrics.ts).
import * as z from "../../core/schema.ts";
import { higher, type MetricInfo } from "../../core/metrics.ts";
import { NVBANDWIDTH_METRICS } from "./nvbandwidth.ts";
import { linkEnd, NVLINK_CE, NVLINK_PHASES, nvlinkMeasurement } from "./parse.ts";
import { num, obj, rankDevice } from "../../parsers/part.ts";
import type { PlotSpec } from "../../core/plot-svg.ts";
import type { KindBlocks, TestResult, TestSpec } from "../../core/types.ts";
import { copyArgs, copyBlock, copyKeys } from "../copy-params.ts";
import { type PlotContext, type TestKind, torchOnEveryGpu } from "../../core/kind.ts";
import { type NvlinkParams, resolveNvlink } from "./params.ts";
import { renderMatrix } from "./matrix-svg.ts";

export type { NvlinkParams } from "./params.ts";

const CE = "local rank 0 of each host: dst.copy_(src, non_blocking=True) between two GPUs that can reach each other as peers, timed with CUDA events on the source GPU's stream";
const HOW = "torch.distributed send/recv (NCCL on GPUs; on CPU gloo over TCP loopback, which the details say), GB/s = bytes × messages / time, 1 GB = 1e9 bytes";

const NVBW = (what: string) =>
  `nvbandwidth's ${what} (NVIDIA/nvbandwidth, each ordered GPU pair alone, CUDA_DEVICE_ORDER=PCI_BUS_ID so GPU numbers are nvidia-smi's), the lowest pair; null with the reason when nvbandwidth is not on the node's PATH, failed, or waived the testcase`;

const metrics: Record<string, MetricInfo> = {
  ...Object.fromEntries(Object.entries(NVBANDWIDTH_METRICS).map(([, m]) => [m.min, higher("GB/s", NVBW(m.testcase))])),
  nvlink_pair_gbps_min: higher("GB/s", `the slowest ordered pair of GPUs, each pair timed alone, both GPUs named (every link in the details, worst first); ${HOW}`),
  nvlink_pair_gbps_median: higher("GB/s", "the median ordered pair of GPUs, each pair timed alone"),
  nvlink_all_gbps_min: higher("GB/s", "the slowest link while every GPU sends to another at once (each shift k: GPU i → GPU i+k), so the links share the switch"),
  nvlink_ce_gbps_min: higher("GB/s", `the slowest ordered pair copied alone by the copy engines (${CE}); null with the reason on CPUs (no copy engine)`),
  nvlink_ce_gbps_median: higher("GB/s", "the median ordered pair copied alone by the copy engines"),
  nvlink_ce_all_gbps_min: higher("GB/s", "the slowest pair while every ordered pair of the host's GPUs copies at once, each on its own stream"),
};

// each link's own values (Measurement.components), for thresholds and the outlier rule per link
const componentMetrics: Record<string, MetricInfo> = {
  ...Object.fromEntries(Object.entries(NVBANDWIDTH_METRICS).map(([, m]) => [m.pair, higher("GB/s", `this ordered GPU pair's figure in ${m.testcase} (nvbandwidth)`)])),
  [NVLINK_PHASES.pairs]: higher("GB/s", "this link (sending GPU → receiving GPU) timed alone"),
  [NVLINK_PHASES.all]: higher("GB/s", "this link while every GPU of the node sends at once"),
  [NVLINK_CE.pairs]: higher("GB/s", "this link (source GPU → destination GPU) copied alone by the copy engines; null with why when the GPUs cannot reach each other as peers"),
  [NVLINK_CE.all]: higher("GB/s", "this link's copies while every pair of the node copies at once"),
};

declare module "../../core/types.ts" {
  interface KindBlocks {
    nvlink: { nvlink: NvlinkParams };
  }
}

export const nvlink: TestKind<"nvlink", NvlinkParams, KindBlocks["nvlink"]> = {
  name: "nvlink",
  summary:
    "GPU↔GPU GB/s inside a node as a matrix: send/recv between every ordered pair alone, then all pairs at once, then copy-engine copies alike; each link named by its two GPUs",
  block: z.lazy(copyBlock),
  keys: copyKeys("256MiB (4MiB when gpusPerNode is 0)", "bytes per message", "messages per ordered pair and per shift"),
  perNode: true,
  resolve: (block, ctx) => ({ nvlink: resolveNvlink(block, ctx) }),
  params: (spec: TestSpec) => spec.nvlink,
  metrics,
  componentMetrics,
  headline: "nvlink_pair_gbps_min",
  telemetry: true,
  processGroup: true,
  args: (p) => copyArgs("nvlink", p),
  measure: (output) => nvlinkMeasurement(output),
  plots: (test, ctx) => (["pairs", "all"] as const).flatMap((phase) => matrixPlots(test, ctx, phase)),
  needs: torchOnEveryGpu,
  resultSource:
    "the GPUCHECK_RESULT line rank 0 of `gpucheck_workload nvlink` prints (workload/gpucheck_workload/nvlink.py): every rank's device and every link's timed messages, as lib/kinds/nvlink/parse.ts reads it",
};

const PHASE_TITLE = { pairs: "GB/s of each ordered pair alone", all: "GB/s of each link, all pairs at once" };

/** One matrix per host of each unit: rows send, columns receive. */
function matrixPlots(test: TestResult, ctx: PlotContext, phase: "pairs" | "all"): PlotSpec[] {
  return test.units.flatMap((u) => {
    const raw = obj(u.measurement?.raw);
    const ranks = (Array.isArray(raw.ranks) ? raw.ranks : []).map((x, i) => rankDevice(x, i));
    const timed = new Map((Array.isArray(raw[phase]) ? (raw[phase] as unknown[]) : []).map((e) => [`${num(obj(e).src)}>${num(obj(e).dst)}`, num(obj(e).gbps)]));
    const hosts = [...new Set(ranks.map((r) => r.host))];
    return hosts.flatMap((host) => {
      const mine = ranks.filter((r) => r.host === host);
      if (mine.length < 2) return [];
      const labels = mine.map((r) => linkEnd(r).replace(/ \(.*$/, ""));
      const cells = mine.map((s) => mine.map((d) => (s === d ? null : (timed.get(`${s.rank}>${d.rank}`) ?? null))));
      const id = ctx.id(`${NVLINK_PHASES[phase]}-${u.unit === host ? host : `${u.unit}-${host}`}`);
      const title = `${test.name} ${host}: ${PHASE_TITLE[phase]}`;
      const kind = "nvlink_matrix";
      const series = cells.map((row, i) => ({ name: `from ${labels[i]}`, points: row.map((v, j) => [j, v] as [number, number | null]) }));
      return [
        { id, title, kind, xLabel: "receiving GPU", yLabel: "GB/s", xScale: "linear", series, draw: () => renderMatrix({ id, title, kind, labels, cells }) } satisfies PlotSpec,
      ];
    });
  });
}
