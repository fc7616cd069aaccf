// What a metric is (unit, better direction), the telemetry metrics every kind collects, the
// transports a collective may name, and the units a threshold may be written in. Each kind's own
// metrics live with the kind (lib/kinds/). Names are snake_case; values in `unit`.
import { parseQuantity } from "./units.ts";

export interface MetricInfo {
  /** canonical unit: thresholds are converted to it, parsers report in it */
  unit: string;
  /** measured at every message size of a sweep; thresholds may name a size (busbw@1GiB) */
  perSize?: boolean;
  better: "higher" | "lower";
  description: string;
  /** produced only by these training models */
  models?: string[];
  /** produced only when training on a real data set (not synthetic) */
  realData?: boolean;
  /**
   * a total that grows with the GPUs: "job" over every GPU of the test, "node" over one node's.
   * An inherited absolute threshold on it goes stale when a child suite changes nodes or GPUs.
   */
  total?: "job" | "node";
}

export const higher = (unit: string, description: string, extra: Partial<MetricInfo> = {}): MetricInfo => ({ unit, better: "higher", description, ...extra });
export const lower = (unit: string, description: string, extra: Partial<MetricInfo> = {}): MetricInfo => ({ unit, better: "lower", description, ...extra });

/** Collected by node telemetry during any test, so valid on every kind. */
export const TELEMETRY_METRICS: Record<string, MetricInfo> = {
  gpu_temp_max: lower("C", "highest GPU temperature seen"),
  gpu_power_max: lower("W", "highest GPU power draw seen"),
  gpu_util_mean: higher("%", "mean GPU utilisation"),
  xid_hardware: lower(
    "count",
    "hardware Xids during the test (48, 63, 64, 74, 79, 92, 94, 95, 119, 120 …: Azure's node health check list and NVIDIA's Xid catalogue), per GPU and code, from NVML events and the kernel log",
  ),
  xid_application: lower("count", "application Xids during the test (13, 31, 43, 45: caused by the program, not the GPU), per GPU and code"),
  xid_events: lower("count", "every Xid and NVSwitch SXid during the test, per GPU and code (inventory tests: the whole kernel log)"),
  throttle_hw: lower("count", "GPUs × reasons seen holding clocks down during the test: HW slowdown, HW thermal slowdown, HW power brake"),
  throttle_sw_thermal: lower("count", "GPUs seen in SW thermal slowdown during the test"),
  throttle_sw_power_cap: lower("count", "GPUs seen at their software power cap (normal for an H100 at full load: reported, no built-in threshold)"),
  throttle_events: lower("count", "throttle_hw + throttle_sw_thermal (the reasons that fail a test)"),
  sm_clock_min_mhz: higher("MHz", "the lowest per-GPU median SM clock while the GPU was ≥ 80 % busy (each GPU's min and median in the details)"),
  ib_link_downed: lower("count", "InfiniBand port link_downed counter gained during the test, summed over ports (sysfs counters, before and after)"),
  ib_port_errors: lower(
    "count",
    "InfiniBand port error counters gained during the test (symbol_error, link_error_recovery, port_rcv_errors, port_xmit_discards, local_link_integrity_errors, excessive_buffer_overrun_errors, port_rcv_remote_physical_errors)",
  ),
  nvlink_errors: lower("count", "NVLink error counters gained during the test (replay, recovery, CRC), summed over GPUs and links"),
};

/**
 * What `transport: { require: [...], forbid: [...] }` may name: the transports NCCL reports per
 * connection (lib/parsers/nccl-info.ts). A family token covers its members: P2P any P2P/…, NET any
 * network; NET/IB is NCCL's IB verbs transport (InfiniBand or RoCE, built in or the IBext plugin).
 */
export const TRANSPORT_TOKENS: Record<string, string> = {
  NVLS: "NVLink SHARP (multicast through the NVSwitches)",
  P2P: "any direct GPU-to-GPU path inside a node (NVLink or PCIe)",
  "P2P/IPC": "P2P through CUDA IPC handles (one process per GPU)",
  "P2P/CUMEM": "P2P through cuMem memory handles (newer NCCL releases)",
  "P2P/direct": "P2P by direct pointer (one process driving several GPUs)",
  "P2P/MNNVL": "P2P over multi-node NVLink (NVL72-class systems)",
  "P2P/indirect": "P2P relayed through an intermediate GPU",
  "P2P/common": "two ranks on one GPU (NCCL 2.4–2.7: 'via P2P/common device')",
  SHM: "through host shared memory (P2P unavailable or disabled)",
  NET: "any network transport",
  "NET/IB": "InfiniBand/RoCE verbs (NCCL's IB transport or the IBext plugin)",
  "NET/Socket": "TCP sockets",
  "NET/Libfabric": "AWS EFA through the aws-ofi-nccl plugin ('NET/AWS Libfabric', 'NET/Libfabric')",
  "NET/TCPX": "Google's GPUDirect-TCPX/TCPXO plugins ('NET/GPUDirectTCPX', 'NET/FasTrak')",
  GDRDMA: "network connections with GPUDirect RDMA (NIC reads GPU memory directly)",
  CollNet: "in-network reduction (SHARP through the CollNet plugin)",
};

/** Units a threshold may be written in, per canonical unit, with the factor to the canonical one. */
export const UNIT_ALIASES: Record<string, Record<string, number>> = {
  "GB/s": {
    "GB/s": 1,
    "B/s": 1e-9,
    "KB/s": 1e-6,
    "MB/s": 1e-3,
    "TB/s": 1e3,
    "KiB/s": 1024 / 1e9,
    "MiB/s": 1024 ** 2 / 1e9,
    "GiB/s": 1024 ** 3 / 1e9,
    "TiB/s": 1024 ** 4 / 1e9,
    "Mb/s": 1.25e-4,
    "Gb/s": 0.125,
    "Tb/s": 125,
    "Gbit/s": 0.125,
    Gbps: 0.125,
  },
  "Gb/s": { "Gb/s": 1, "Gbit/s": 1, Gbps: 1, "Mb/s": 1e-3, "Tb/s": 1e3, "GB/s": 8 },
  us: { us: 1, µs: 1, ns: 1e-3, ms: 1e3, s: 1e6 },
  ms: { ms: 1, us: 1e-3, µs: 1e-3, s: 1e3 },
  "samples/s": { "samples/s": 1, "sample/s": 1, "img/s": 1, "images/s": 1, "seq/s": 1 },
  "tokens/s": { "tokens/s": 1, "tok/s": 1 },
  "TFLOP/s": { "TFLOP/s": 1, TFLOPS: 1, "GFLOP/s": 1e-3, GFLOPS: 1e-3, "PFLOP/s": 1e3, PFLOPS: 1e3 },
  "%": { "%": 1 },
  IOPS: { IOPS: 1, kIOPS: 1e3 },
  C: { C: 1, "°C": 1 },
  W: { W: 1, kW: 1e3 },
  MHz: { MHz: 1, GHz: 1e3 },
  count: {},
  "": {},
};

/**
 * A threshold as written ("0.4 TB/s", "2790 img/s", 0) → the number in the metric's canonical
 * unit, or the reason it cannot be. A plain number is already in the canonical unit.
 */
export function toCanonical(metric: string, info: MetricInfo, input: unknown): { ok: true; value: number } | { ok: false; reason: string } {
  const aliases = UNIT_ALIASES[info.unit] ?? {};
  const q = parseQuantity(input);
  const factor = q && (q.unit === "" || q.unit === info.unit ? 1 : aliases[q.unit]);
  if (!q || factor === undefined) {
    const units = [...new Set([info.unit, ...Object.keys(aliases)])].filter((u) => u !== "" && u !== "count");
    const expected = units.length ? `a number in ${units.join(", ")}` : "a number";
    return { ok: false, reason: `invalid value ${JSON.stringify(String(input))} for metric "${metric}": expected ${expected}` };
  }
  return { ok: true, value: Number((q.value * factor).toPrecision(12)) };
}
