// kind: nic: per-NIC RDMA bandwidth and latency between two nodes (perftest ib_write_bw and
// ib_read_lat, one HCA at a time, GPUDirect from the GPU nearest each HCA; without perftest, NCCL
// send/recv pinned to each HCA in turn), each HCA pair a component, with the tool that measured it,
// so the outlier rule names a weak NIC or cable; and a TCP stream between the two ranks, the only
// figure on a machine without RDMA, labelled with the interface it crossed.
import * as z from "../../core/schema.ts";
import { higher, lower, type MetricInfo } from "../../core/metrics.ts";
import { nicMeasurement } from "./parse.ts";
import type { KindBlocks, TestSpec } from "../../core/types.ts";
import type { TestKind } from "../../core/kind.ts";
import { type NicParams, nicArgs, nicBlock, resolveNic } from "./params.ts";

export type { NicParams } from "./params.ts";

const PAIR = "node 0's HCA serving, node 1's same-named HCA connecting, so the cable and switch ports of both are crossed";
const P2P = 'a child process per node and HCA with NCCL_IB_HCA==<hca> and NCCL_NET=IB, node 1 sending, node 0 receiving and timing with CUDA events, source "nccl-p2p"';

const metrics: Record<string, MetricInfo> = {
  nic_bw_gbps_min: higher(
    "Gb/s",
    `ib_write_bw --report_gbits BW average of the worst HCA pair (${PAIR}), or where perftest is missing NCCL send/recv Gb/s between the same HCAs (${P2P}); every pair named by host, device, port, rate, nearest GPU and tool in the details; null with the reason when neither can run, there is no InfiniBand device, a server never listened, a client timed out or NCCL's INFO lines do not show the bytes on that HCA`,
  ),
  nic_lat_us_max: lower(
    "us",
    "ib_read_lat t_typical (the median) of the worst HCA pair, or NCCL's one-way latency (half an 8-byte send/recv round trip) without perftest; every pair named",
  ),
  nic_tcp_gbyte_s: higher(
    "GB/s",
    'a bounded TCP stream from rank 1 to rank 0 (Python sockets) over the interface their rendezvous address routes by, named in the details ("device: cpu — TCP over lo, no RDMA NIC crossed" without InfiniBand)',
  ),
  nic_tcp_rtt_us: lower("us", "median 1-byte TCP round trip between the two ranks over the same route"),
};

// each HCA pair's own values (Measurement.components, part type "nic", name = device)
const componentMetrics: Record<string, MetricInfo> = {
  nic_bw_gbps: higher("Gb/s", "ib_write_bw BW average of this HCA pair, or NCCL send/recv Gb/s pinned to it (the part's source says which)"),
  nic_lat_us: lower("us", "ib_read_lat t_typical of this HCA pair, or NCCL's one-way send/recv latency (the part's source says which)"),
  nic_tcp_route_gbyte_s: higher(
    "GB/s",
    "the TCP stream between the two nodes as a part (the route, named by interface and peer): with pattern pairwise, judged against the other pairs by an outlier rule over the fleet",
  ),
  nic_tcp_route_rtt_us: lower("us", "the median 1-byte TCP round trip of the same route"),
};

declare module "../../core/types.ts" {
  interface KindBlocks {
    nic: { nic: NicParams };
  }
}

export const nic: TestKind<"nic", NicParams, KindBlocks["nic"]> = {
  name: "nic",
  summary:
    "per-HCA RDMA Gb/s and µs between two nodes (perftest ib_write_bw/ib_read_lat, else NCCL send/recv pinned to each HCA; GPUDirect from the nearest GPU), and a TCP stream between the ranks",
  block: z.lazy(nicBlock),
  keys: [
    { key: "hcas", doc: 'the HCAs to pair (NCCL_IB_HCA names, DEVICE or DEVICE:PORT, or "mlx5_0,mlx5_3"); absent: every port under /sys/class/infiniband of node 0' },
    { key: "size", default: "1MiB", doc: "ib_write_bw message size" },
    { key: "iters", default: "5000", doc: "ib_write_bw and ib_read_lat iterations (-n)" },
    { key: "timeout", default: "60s", doc: "how long each perftest client may run before its HCA is unmeasured" },
    { key: "tcpSize", default: "256MiB", doc: "bytes of the TCP stream between the two ranks" },
    { key: "p2pSize", default: "256MiB", doc: "without perftest: bytes per NCCL send/recv message pinned to each HCA" },
    { key: "p2pIters", default: "20", doc: "without perftest: timed NCCL send/recv messages per HCA (after 3 untimed)" },
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
  // perftest is not a preflight need: without it NCCL send/recv stands in where it can, else its
  // absence is the metrics' reason; the TCP stream runs either way
  needs: () => ({ torch: true, gpus: 0, nccl: false }),
  resultSource:
    "the GPUCHECK_RESULT line rank 0 of `gpucheck_workload nic` prints (workload/gpucheck_workload/nic.py): each HCA's ib_write_bw and ib_read_lat client output from rank 1, or both NCCL send/recv children's output (nic_p2p.py), and the TCP stream, as lib/kinds/nic/parse.ts reads it",
};
