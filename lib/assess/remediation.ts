// A remediation on every failed check: (kind, metric, failure mode) → a class of operator practice
// (./remediation-sources.ts) and an action naming the part. One table, read top to bottom, first match
// wins; a check on an Xid count takes its class from the Xid's own number (NVIDIA's Xid catalogue).
// test/assess/remediation.test.ts fails on any metric a built-in kind can produce that no row covers.
import type { Check, Kind, Measurement, Remediation } from "../core/types.ts";
import { partName } from "../core/parts.ts";
import { CLASSES, type RemediationClass, SOURCES, type SourceKey } from "./remediation-sources.ts";
import { BASELINE_FIELDS, FIRMWARE_FIELDS } from "../baseline/fields.ts";

export type { RemediationClass } from "./remediation-sources.ts";
export type { Remediation } from "../core/types.ts";

/** how a check failed: a bound (min, max, =) missed, an outlier among peers, the transport rule */
export type FailureMode = "bound" | "outlier" | "transport";

export interface RemediationRule {
  /** a kind, or "*" for the telemetry metrics every kind collects */
  kind: Kind | "fabric" | "storage" | "*";
  metric: RegExp;
  modes?: FailureMode[];
  class: RemediationClass;
  /** why this class, said after the part: "its HBM bandwidth is short of its peers" */
  why: string;
  source: SourceKey;
}

const ALL = /.*/;

/** The mapping; `gpucheck list` and docs/remediation.md print it. */
export const REMEDIATION_RULES: RemediationRule[] = [
  // telemetry, on every kind
  {
    kind: "*",
    metric: /^(gpu_temp_max|gpu_power_max|throttle_hw|throttle_sw_thermal|throttle_sw_power_cap|throttle_events|sm_clock_min_mhz)$/,
    class: "check-cooling",
    why: "clocks held down by heat or power",
    source: "healthValidation",
  },
  { kind: "*", metric: /^gpu_util_mean$/, class: "escalate-vendor", why: "the GPUs sat idle during the test", source: "crusoe" },
  {
    kind: "*",
    metric: /^(ib_link_downed|ib_port_errors)$/,
    class: "reseat-cable",
    why: "InfiniBand link errors point at the cable or transceiver between the HCA port and its switch port",
    source: "azureNhc",
  },
  { kind: "*", metric: /^nvlink_errors$/, class: "reset-gpu", why: "NVLink errors (the catalogue's NVLink bucket: reset, then check the mechanicals)", source: "xidCatalog" },
  {
    kind: "*",
    metric: /^xid_application$/,
    class: "escalate-vendor",
    why: "application Xids are the program's fault (catalogue: restart the application); repeated on a known-good program, escalate",
    source: "xidCatalog",
  },
  { kind: "*", metric: /^xid_(hardware|events)$/, class: "reset-gpu", why: "hardware Xid (the class follows the Xid number)", source: "xidCatalog" },
  // collective
  { kind: "collective", metric: /^rail_busbw$/, class: "reseat-cable", why: "one rail is slow: its HCA, cable and switch port", source: "coreweave" },
  {
    kind: "collective",
    metric: /^(wrong|out_of_bounds)$/,
    class: "rma-part",
    why: "wrong results are silent data corruption; isolate the GPU or node that corrupts",
    source: "clustermax",
  },
  {
    kind: "collective",
    metric: ALL,
    modes: ["transport"],
    class: "reinstall-driver",
    why: "NCCL did not use the required path: GPUDirect (peer-memory module), NVLS (Fabric Manager) or its IB plugin",
    source: "verda",
  },
  {
    kind: "collective",
    metric: /^(busbw|algbw|time_us|busbw_peak|busbw_avg)$/,
    class: "escalate-vendor",
    why: "the job's bandwidth is short: isolate the node or link (isolate:) before acting on one part",
    source: "clustermax",
  },
  // train
  {
    kind: "train",
    metric: /^(loss_start|loss_end|accuracy)$/,
    class: "escalate-vendor",
    why: "the model did not learn: isolate the rank, suspect silent data corruption",
    source: "clustermax",
  },
  { kind: "train", metric: ALL, class: "escalate-vendor", why: "training throughput is short: isolate the node before acting on one part", source: "clustermax" },
  // inventory
  {
    kind: "inventory",
    metric: /^gpu_count$/,
    class: "reboot-node",
    why: "a GPU is missing (fallen off the bus: catalogue restart the machine, then reseat or RMA)",
    source: "xidCatalog",
  },
  { kind: "inventory", metric: /^nvlink_inactive$/, class: "reset-gpu", why: "an NVLink is down", source: "xidCatalog" },
  {
    kind: "inventory",
    metric: /^fabric_not_ready$/,
    class: "reboot-node",
    why: "the NVLink fabric is not registered (Fabric Manager); restart it or the node",
    source: "healthValidation",
  },
  {
    kind: "inventory",
    metric: /^(ecc_uncorrected|ecc_dram_uncorrected|ecc_sram_uncorrected)$/,
    class: "reset-gpu",
    why: "uncorrectable ECC errors (catalogue: reset; repeated, RMA)",
    source: "xidCatalog",
  },
  { kind: "inventory", metric: /^remapped_rows_pending$/, class: "reset-gpu", why: "a row remap waits for a GPU reset to take effect", source: "rowRemap" },
  {
    kind: "inventory",
    metric: /^(remap_failure|sram_threshold_exceeded|remapped_rows|retired_pages)$/,
    class: "rma-part",
    why: "the GPU's memory ran out of spare rows or failed to remap",
    source: "rowRemap",
  },
  {
    kind: "inventory",
    metric: /^imex_not_ready$/,
    class: "reboot-node",
    why: "the IMEX daemon, or a node of its NVLink domain, is not READY: restart nvidia-imex on the named node, then the node",
    source: "imexGuide",
  },
  { kind: "inventory", metric: /^baseline_mismatches$/, class: "reinstall-driver", why: "a version differs from the baseline (firmware fields are reflashed)", source: "verda" },
  {
    kind: "inventory",
    metric: /^(ecc_disabled|mig_enabled|persistence_off|config_mismatches)$/,
    class: "reconfigure",
    why: "a device setting differs from what the suite expects",
    source: "verda",
  },
  {
    kind: "inventory",
    metric: /^(ib_ports_active|ib_port_rate)$/,
    class: "reseat-cable",
    why: "an InfiniBand port is down or below its rate: the cable or transceiver between the HCA port and its switch port",
    source: "azureNhc",
  },
  // per-GPU kinds
  { kind: "gemm", metric: /checksum_mismatches$/, class: "rma-part", why: "the GPU computed a different product: silent data corruption", source: "clustermax" },
  { kind: "gemm", metric: ALL, class: "check-cooling", why: "GEMM throughput short: check clocks, cooling and power first; persistent, RMA", source: "dcgmDiag" },
  { kind: "membw", metric: ALL, class: "reset-gpu", why: "HBM bandwidth short; persistent after a reset, RMA", source: "dcgmDiag" },
  {
    kind: "pcie",
    metric: ALL,
    class: "reseat-cable",
    why: "the PCIe link is degraded or slow: reseat the device and its riser or retimer cable (catalogue: check the mechanicals)",
    source: "xidCatalog",
  },
  {
    kind: "nvlink",
    metric: ALL,
    class: "reset-gpu",
    why: "NVLink bandwidth short on the link between the two GPUs named (reset, then check the mechanicals)",
    source: "xidCatalog",
  },
  { kind: "dcgm", metric: /^(dcgm_failures|dcgm_gpu_failures)$/, class: "rma-part", why: "DCGM's diagnostic failed the GPU", source: "dcgmDiag" },
  { kind: "dcgm", metric: /^(dcgm_warnings|dcgm_skipped)$/, class: "escalate-vendor", why: "DCGM warned or could not run a plugin", source: "dcgmDiag" },
  { kind: "burn", metric: /checksum_mismatches$/, class: "rma-part", why: "the GPU computed a different product under load: silent data corruption", source: "clustermax" },
  { kind: "burn", metric: ALL, class: "check-cooling", why: "the GPU slowed or throttled under sustained load", source: "healthValidation" },
  {
    kind: "nic-loopback",
    metric: ALL,
    class: "reboot-node",
    why: "the HCA's own GPUDirect loopback is slow, so not its cable: check its PCIe link and NUMA placement, reboot, then RMA the HCA",
    source: "azureNhc",
  },
  { kind: "nic", metric: ALL, class: "reseat-cable", why: "the HCA pair is slow: the cables of both HCAs to their switch ports", source: "azureNhc" },
  // kinds other branches add (fabric against the design, storage with fio)
  {
    kind: "fabric",
    metric: /^fabric_pkeys$/,
    class: "reconfigure",
    why: "the port's partitions are the subnet manager's setting: add its GUID to the partition in partitions.conf (or take it out of the one it should not be in) and let the SM sweep",
    source: "clustermax",
  },
  {
    kind: "fabric",
    metric: /^fabric_counters$/,
    class: "reseat-cable",
    why: "error counters moved on the link: the cable or transceiver between the two named ports",
    source: "azureNhc",
  },
  { kind: "fabric", metric: ALL, class: "reseat-cable", why: "the link differs from the design: reseat or move the cable named at both ends", source: "coreweave" },
  {
    kind: "storage",
    metric: ALL,
    class: "escalate-vendor",
    why: "storage bandwidth or latency short: replace the named drive, or escalate the shared filesystem",
    source: "crusoe",
  },
];

/**
 * What NVIDIA's Xid catalogue gives as the immediate action for the hardware Xids gpucheck counts:
 * restart the machine for a GPU gone from the bus or a GSP fault, RMA for a failed remap, otherwise
 * reset the GPU. A code not listed takes the xid_hardware row (reset the GPU).
 */
export const XID_CLASSES: Record<number, RemediationClass> = {
  48: "reset-gpu",
  63: "reset-gpu",
  64: "rma-part",
  74: "reset-gpu",
  79: "reboot-node",
  92: "reset-gpu",
  94: "reset-gpu",
  95: "reset-gpu",
  119: "reboot-node",
  120: "reboot-node",
  140: "reset-gpu",
};

/** Most drastic first: the class said when several Xids are behind one count. */
const SEVERITY: RemediationClass[] = [
  "rma-part",
  "reboot-node",
  "reseat-cable",
  "reflash-firmware",
  "reinstall-driver",
  "reconfigure",
  "reset-gpu",
  "check-cooling",
  "escalate-vendor",
];

export function modeOf(c: Check): FailureMode {
  if (c.metric === "transport" && typeof c.expected !== "number") return "transport";
  return "outlier" in c && c.outlier ? "outlier" : "bound";
}

/** The row for (kind, metric, mode), or undefined: the table's gap, which the tests fail on. */
export function remediationRule(kind: string, metric: string, mode: FailureMode): RemediationRule | undefined {
  return REMEDIATION_RULES.find((r) => (r.kind === kind || r.kind === "*") && r.metric.test(metric) && (r.modes ? r.modes.includes(mode) : mode !== "transport"));
}

const sourceText = (key: SourceKey) => `${SOURCES[key].name} (${SOURCES[key].url})`;

/**
 * The remediation of one failed check. `details` is the measurement's account of the parts behind
 * the metric (which GPU logged which Xid). A metric the table does not know (a plugin's) is escalated.
 */
export function remediationFor(kind: string, c: Check, details?: Record<string, string>): Remediation {
  const rule = remediationRule(kind, c.metric, modeOf(c));
  const part = c.part ? partName(c.part) : "the node";
  if (!rule) return { class: "escalate-vendor", action: `escalate ${part}: gpucheck has no remediation for ${kind} ${c.metric}`, source: sourceText("crusoe") };
  const xids = /^xid_(hardware|events)$/.test(c.metric) ? xidCodes(details?.[c.metric] ?? c.message) : [];
  if (xids.length) {
    const cls = SEVERITY.find((k) => xids.some((x) => (XID_CLASSES[x] ?? "reset-gpu") === k)) ?? "reset-gpu";
    return { class: cls, action: `${CLASSES[cls].label}: Xid ${xids.join(", ")} on ${part} (${details?.[c.metric] ?? "see the check"})`, source: sourceText("xidCatalog") };
  }
  const versions = /^(baseline|config)_mismatches$/.test(c.metric) ? versionClass(details?.[c.metric] ?? c.message) : null;
  if (versions)
    return {
      class: versions,
      action: `${CLASSES[versions].label}: ${details?.[c.metric] ?? c.message}`,
      source: sourceText(versions === "reflash-firmware" ? "coreweave" : "verda"),
    };
  return { class: rule.class, action: `${CLASSES[rule.class].label}: ${part}: ${rule.why}`, source: sourceText(rule.source) };
}

/**
 * A version finding's class from the fields it names ("gpu01 mlx5_0 port 1: nic_firmware 28.39 ≠ 28.41
 * (the baseline)"): firmware is reflashed, software reinstalled; null when it names neither (a power limit).
 */
function versionClass(text: string): RemediationClass | null {
  const fields = [...text.matchAll(/: (\w+) [^;]*? ≠ /g)].map((m) => m[1]!);
  if (fields.some((f) => FIRMWARE_FIELDS.has(f))) return "reflash-firmware";
  return fields.some((f) => Object.hasOwn(BASELINE_FIELDS, f)) ? "reinstall-driver" : null;
}

/** The Xid numbers a detail line names ("node1 GPU 3 (…): Xid 79 ×2 (kernel log)"); SXids are the NVSwitch's. */
export function xidCodes(text: string): number[] {
  return [...new Set([...text.matchAll(/(?<!S)Xid (\d+)/g)].map((m) => Number(m[1])))].sort((a, b) => a - b);
}

/** Every failed check of a verdict given its remediation (measured but missed; an unmeasured check is an error, not a finding). */
export function withRemediations<C extends Check>(kind: string, checks: C[], m: Measurement | null): C[] {
  return checks.map((c) => (c.ok || c.measured === null ? c : { ...c, remediation: remediationFor(kind, c, m?.details) }));
}
