// kind: nic-loopback: each compute HCA's RDMA write bandwidth with GPUDirect, server and client on
// one node and one HCA, run as Azure's check_ib_bw_gdr runs it (8 MiB writes, --perform_warm_up,
// numactl on the HCA's NUMA node, every HCA at once): the method the 380 Gb/s floor was measured
// by. Cross-node HCA pairs are the nic kind's, with their own floor.
import * as z from "../../core/schema.ts";
import { higher, type MetricInfo } from "../../core/metrics.ts";
import type { KindBlocks, TestSpec } from "../../core/types.ts";
import type { TestKind } from "../../core/kind.ts";
import { nicLoopbackMeasurement } from "./parse.ts";
import { type NicLoopbackParams, nicLoopbackArgs, nicLoopbackBlock, resolveNicLoopback } from "./params.ts";

export type { NicLoopbackParams } from "./params.ts";

const METHOD =
  "numactl -N <the HCA's NUMA node> -m <same> ib_write_bw -p <port> -s <size> -x 0 -F --report_gbits --perform_warm_up --use_cuda=<GPU> -d <hca>, server and client on this node and HCA, every HCA at once (Azure/azurehpc-health-checks customTests/azure_ib_write_bw_gdr.nhc)";

const metrics: Record<string, MetricInfo> = {
  nic_loopback_gbps_min: higher(
    "Gb/s",
    `the lowest HCA's ib_write_bw BW average (Gb/s, 1e9 bits) over a loopback on that HCA: ${METHOD}; every HCA named by host, device, port, rate, NUMA node and GPU in the details; null with the reason when any HCA has no figure (no InfiniBand port, ib_write_bw or numactl missing, no GPU, no NUMA node, a failed or short run)`,
  ),
};

const componentMetrics: Record<string, MetricInfo> = {
  nic_loopback_gbps: higher("Gb/s", "this HCA's ib_write_bw loopback BW average with GPUDirect (the method of nic_loopback_gbps_min)"),
};

declare module "../../core/types.ts" {
  interface KindBlocks {
    "nic-loopback": { "nic-loopback": NicLoopbackParams };
  }
}

export const nicLoopback: TestKind<"nic-loopback", NicLoopbackParams, KindBlocks["nic-loopback"]> = {
  name: "nic-loopback",
  summary: "each HCA's ib_write_bw Gb/s with GPUDirect, looped back on that HCA (8 MiB, warm-up, numactl on its NUMA node: Azure's check_ib_bw_gdr method)",
  block: z.lazy(nicLoopbackBlock),
  keys: [
    { key: "hcas", doc: "the HCAs to test (DEVICE or DEVICE:PORT); absent: every port under /sys/class/infiniband" },
    { key: "size", default: "8MiB", doc: "ib_write_bw message size (Azure's check: 8388608)" },
    { key: "timeout", default: "60s", doc: "how long the clients may run before an HCA is unmeasured" },
  ],
  ranksPerNode: 1,
  fixedRanksPerNode: 1,
  perNode: true,
  resolve: (block) => ({ "nic-loopback": resolveNicLoopback(block) }),
  params: (spec: TestSpec) => spec["nic-loopback"],
  metrics,
  componentMetrics,
  headline: "nic_loopback_gbps_min",
  telemetry: false,
  args: nicLoopbackArgs,
  measure: (output) => nicLoopbackMeasurement(output),
  plots: () => [],
  // ib_write_bw, numactl and the GPU are the workload's to find: their absence is each HCA's reason (an error), not a preflight stop
  needs: () => ({ torch: false, gpus: 0, nccl: false }),
  resultSource:
    "the GPUCHECK_RESULT line of `gpucheck_workload nic-loopback` (workload/gpucheck_workload/nic_loopback.py): each HCA's ib_write_bw client output, or why there is none, as lib/kinds/nic-loopback/parse.ts reads it",
};
