// kind: pcie: host↔GPU bandwidth of every GPU with pinned host memory (H2D, D2H, both at once), one
// GPU at a time and all at once; the PCIe link each GPU and InfiniBand HCA trained to against its
// maximum, and the replays the GPUs counted during the copies.
import * as z from "../../core/schema.ts";
import { higher, lower, type MetricInfo } from "../../core/metrics.ts";
import { pcieMeasurement, pcieMetric } from "./parse.ts";
import type { PlotSpec } from "../../core/plot-svg.ts";
import type { KindBlocks, TestSpec } from "../../core/types.ts";
import { copyArgs, copyKeys } from "../copy-params.ts";
import { type TestKind, torchOnEveryGpu } from "../../core/kind.ts";
import { PCIE_OPS, PCIE_PHASES, type PcieParams, pcieBlock, resolvePcie } from "./params.ts";

export type { PcieParams } from "./params.ts";

const OP = { h2d: "host-to-device copy", d2h: "device-to-host copy", bidir: "both directions at once (two streams)" };
const PHASE = { solo: "each GPU alone on its node", all: "every GPU of the node at once" };

const metrics: Record<string, MetricInfo> = {
  ...Object.fromEntries(
    PCIE_PHASES.flatMap((phase) =>
      PCIE_OPS.map((op) => [
        `${pcieMetric(op, phase)}_min`,
        higher(
          "GB/s",
          `${OP[op]} with pinned host memory, ${PHASE[phase]}: the lowest per-GPU best GB/s, 1 GB = 1e9 bytes (every GPU named in the details; on CPU "device: cpu", a host memory copy that crosses no PCIe link)`,
        ),
      ]),
    ),
  ),
  pcie_link_degraded: lower(
    "count",
    "GPUs (nvidia-smi -q GPU Link Info, read while their copies ran, against its Max: the lower of the GPU's and the host's) and the compute HCAs named in `hcas` (sysfs current_link_speed/width, against the lower of the HCA's and its upstream port's max_link_speed/width) whose PCIe link trained below what the slot allows, named in the details",
  ),
  pcie_replays: lower("count", "PCIe replays the GPUs counted during the test (nvidia-smi -q Replays Since Reset, after − before, summed), each GPU with any named"),
};

// each GPU's own best (Measurement.components), for thresholds and the outlier rule per GPU
const componentMetrics: Record<string, MetricInfo> = Object.fromEntries(
  PCIE_PHASES.flatMap((phase) => PCIE_OPS.map((op) => [pcieMetric(op, phase), higher("GB/s", `${OP[op]} with pinned host memory, ${PHASE[phase]}: this GPU's best GB/s`)])),
);

declare module "../../core/types.ts" {
  interface KindBlocks {
    pcie: { pcie: PcieParams };
  }
}

export const pcie: TestKind<"pcie", PcieParams, KindBlocks["pcie"]> = {
  name: "pcie",
  summary: "host↔GPU GB/s of every GPU with pinned memory (H2D, D2H, both), alone and all at once; PCIe link width/generation of GPUs and HCAs; replays",
  block: z.lazy(pcieBlock),
  keys: [
    ...copyKeys("256MiB (64MiB when gpusPerNode is 0)", "bytes per copy (bidir copies one buffer each way at once)", "copies per operation and phase"),
    {
      key: "hcas",
      doc: 'the compute HCAs whose PCIe link pcie_link_degraded judges (NCCL_IB_HCA names, or "mlx5_0,mlx5_3"), each against the lower of its own and its upstream port\'s capability; absent: no HCA link is judged (all are recorded)',
    },
  ],
  perNode: false,
  resolve: (block, ctx) => ({ pcie: resolvePcie(block, ctx) }),
  params: (spec: TestSpec) => spec.pcie,
  metrics,
  componentMetrics,
  headline: "pcie_h2d_gbps_min",
  telemetry: true,
  processGroup: true,
  args: (p) => copyArgs("pcie", p),
  measure: (output, { params }) => pcieMeasurement(output, params?.hcas),
  plots: (test, ctx) => {
    const plots: PlotSpec[] = [];
    for (const phase of PCIE_PHASES) {
      // one point per GPU and operation: a GPU whose link is slow sits below the others
      const series = PCIE_OPS.map((op) => ({
        name: op,
        points: test.units.flatMap((u) =>
          (u.measurement?.components ?? []).flatMap((c) => (c.part.rank === undefined ? [] : [[c.part.rank, c.metrics[pcieMetric(op, phase)] ?? null] as [number, number | null]])),
        ),
      })).filter((s) => s.points.length > 0);
      if (series.length === 0) continue;
      plots.push(ctx.plot(`${pcieMetric("h2d", phase)}_min`, { kind: "pcie_gbps", title: `${test.name}: GB/s per rank, ${PHASE[phase]}`, xLabel: "rank", yLabel: "GB/s", series }));
    }
    return plots;
  },
  needs: torchOnEveryGpu,
  resultSource:
    "the GPUCHECK_RESULT line rank 0 of `gpucheck_workload pcie` prints (workload/gpucheck_workload/pcie.py), every rank's copies, GPU link and (local rank 0) InfiniBand HCA links gathered, as lib/kinds/pcie/parse.ts reads it",
};
