// kind: nic: per-NIC RDMA bandwidth and latency between two nodes (perftest ib_write_bw and
// ib_read_lat, one HCA at a time, GPUDirect from the GPU nearest each HCA), each HCA pair a
// component so the outlier rule names a weak NIC or cable; and a TCP stream between the two ranks,
// the only figure on a machine without RDMA, labelled with the interface it crossed.
import { z } from "zod";
import { higher, lower, type MetricInfo } from "../core/metrics.ts";
import { nicMeasurement } from "../parsers/nic.ts";
import type { KindBlocks, TestSpec } from "../core/types.ts";
import type { TestKind } from "../core/kind.ts";
import { type NicParams, nicArgs, nicBlock, resolveNic } from "./nic/params.ts";
import { nicResult } from "./nic/result.ts";

export type { NicParams } from "./nic/params.ts";

const PAIR = "node 0's HCA serving, node 1's same-named HCA connecting, so the cable and switch ports of both are crossed";

const metrics: Record<string, MetricInfo> = {
  nic_bw_gbps_min: higher(
    "Gb/s",
    `ib_write_bw --report_gbits BW average of the worst HCA pair (${PAIR}); every pair named by host, device, port, rate and nearest GPU in the details; null with the reason when perftest is missing, there is no InfiniBand device, a server never listened or a client timed out`,
  ),
  nic_lat_us_max: lower("us", "ib_read_lat t_typical (the median) of the worst HCA pair, every pair named"),
  nic_tcp_gbyte_s: higher(
    "GB/s",
    'a bounded TCP stream from rank 1 to rank 0 (Python sockets) over the interface their rendezvous address routes by, named in the details ("device: cpu — TCP over lo, no RDMA NIC crossed" without InfiniBand)',
  ),
  nic_tcp_rtt_us: lower("us", "median 1-byte TCP round trip between the two ranks over the same route"),
};

// each HCA pair's own values (Measurement.components, part type "nic", name = device)
const componentMetrics: Record<string, MetricInfo> = {
  nic_bw_gbps: higher("Gb/s", "ib_write_bw BW average of this HCA pair"),
  nic_lat_us: lower("us", "ib_read_lat t_typical of this HCA pair"),
};

declare module "../core/types.ts" {
  interface KindBlocks {
    nic: { nic: NicParams };
  }
}

export const nic: TestKind<"nic", NicParams, KindBlocks["nic"]> = {
  name: "nic",
  summary: "per-HCA RDMA Gb/s and µs between two nodes (perftest ib_write_bw/ib_read_lat, GPUDirect from the nearest GPU), and a TCP stream between the ranks",
  block: z.lazy(nicBlock),
  keys: [
    { key: "hcas", doc: 'the HCAs to pair (NCCL_IB_HCA names, DEVICE or DEVICE:PORT, or "mlx5_0,mlx5_3"); absent: every port under /sys/class/infiniband of node 0' },
    { key: "size", default: "1MiB", doc: "ib_write_bw message size" },
    { key: "iters", default: "5000", doc: "ib_write_bw and ib_read_lat iterations (-n)" },
    { key: "timeout", default: "60s", doc: "how long each perftest client may run before its HCA is unmeasured" },
    { key: "tcpSize", default: "256MiB", doc: "bytes of the TCP stream between the two ranks" },
  ],
  // two nodes, one process each: the pair is the unit
  ranksPerNode: 1,
  perNode: false,
  nodesPerRun: 2,
  resolve: (block) => ({ nic: resolveNic(block) }),
  params: (spec: TestSpec) => spec.nic,
  metrics,
  componentMetrics,
  headline: "nic_bw_gbps_min",
  telemetry: false,
  args: nicArgs,
  measure: (output) => nicMeasurement(output),
  plots: () => [],
  // perftest is not a preflight need: its absence is the metrics' reason, and the TCP stream still runs
  needs: () => ({ torch: true, gpus: 0, nccl: false }),
  result: nicResult,
  resultSource:
    "the GPUCHECK_RESULT line rank 0 of `gpucheck_workload nic` prints (workload/gpucheck_workload/nic.py): each HCA's ib_write_bw and ib_read_lat client output from rank 1 and the TCP stream, as lib/parsers/nic.ts reads it",
};
