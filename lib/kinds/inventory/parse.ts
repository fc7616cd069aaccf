// GPUCHECK_INVENTORY / inventory GPUCHECK_RESULT → NodeInventory and inventory metrics.
//
// Every metric is either counted from what the node reported or unmeasured with the reason: a
// kernel log nobody could read is not "no Xid", a failing `nvidia-smi nvlink -s` is not "every link
// up", an Ethernet or storage port is not a compute InfiniBand port.
import { imexNotReady } from "./imex.ts";
import { baselineCheck } from "../../baseline/compare.ts";
import { ParseError } from "../../core/errors.ts";
import type { Measurement, NodeInventory } from "../../core/types.ts";
import type { InventoryParams } from "./params.ts";
import { describeFinding, fleetConfigCheck, nodeConfigCheck } from "./config.ts";
import { taggedLines } from "../../parsers/protocol.ts";

type Obj = Record<string, unknown>;
const arr = (v: unknown): Obj[] => (Array.isArray(v) ? (v as Obj[]) : []);
const num = (v: unknown): number | null => (typeof v === "number" && Number.isFinite(v) ? v : null);

export function toInventory(raw: Obj): NodeInventory {
  return {
    ...raw,
    hostname: String(raw.hostname ?? "unknown"),
    gpus: arr(raw.gpus).map((g, i) => ({ ...g, index: typeof g.index === "number" ? g.index : i, name: String(g.name ?? "unknown") })),
  };
}

/** Every node's inventory found in the given logs, one per hostname (the last wins). */
export function collectInventories(texts: string[]): NodeInventory[] {
  const byHost = new Map<string, NodeInventory>();
  for (const t of texts)
    for (const raw of taggedLines(t, "INVENTORY")) {
      const inv = toInventory(raw);
      byHost.set(inv.hostname, inv);
    }
  return [...byHost.values()];
}

/**
 * NVLink links per GPU by model, when the suite does not say: NVLink4 H100 SXM5 and H200 SXM have 18
 * links (900 GB/s; NVIDIA H100 and H200 datasheets, and the 18 × 26.562 GB/s of `nvlink -s` in
 * node-samples), A100 SXM4 12 (600 GB/s, A100 datasheet), the export H800 and A800 SXM 8 (400 GB/s).
 * PCIe and NVL boards use bridges whose count depends on how they were fitted: unknown.
 */
const NVLINKS_BY_MODEL: Array<[RegExp, number]> = [
  [/\b(PCIe|NVL)\b/i, -1],
  [/\bH100\b.*\b(HBM3|SXM)/i, 18],
  [/\bH200\b/i, 18],
  [/\bGH200\b/i, 18],
  [/\bA100-SXM/i, 12],
  [/\b[HA]800\b/i, 8],
];

export function expectedNvlinks(model: string): number | null {
  for (const [re, n] of NVLINKS_BY_MODEL) if (re.test(model)) return n < 0 ? null : n;
  return null;
}

function gpuName(g: Obj): string {
  const bus = g.pci_bus_id ? ` (${g.pci_bus_id}${g.serial ? `, serial ${g.serial}` : ""})` : "";
  return `GPU ${g.index}${bus}`;
}

const isActive = (l: Obj) => String(l.state).toLowerCase() === "active" || l.state === true || l.state === "up";

/** The ports that count as compute fabric: InfiniBand link layer, on the named HCAs when named. */
export function computePorts(inv: NodeInventory, hcas?: string[]): { ports: Obj[]; missing: string[] } {
  const all = arr(inv.ib_ports);
  const ib = all.filter((p) => String(p.link_layer ?? "InfiniBand").toLowerCase() === "infiniband");
  if (!hcas) return { ports: ib, missing: [] };
  const wanted = hcas.map((h) => {
    const [device, port] = h.split(":");
    return { device, port: port === undefined ? undefined : Number(port), name: h };
  });
  const ports = ib.filter((p) => wanted.some((w) => w.device === p.device && (w.port === undefined || w.port === p.port)));
  const missing = wanted
    .filter((w) => !ib.some((p) => p.device === w.device && (w.port === undefined || w.port === p.port)))
    .map((w) => {
      const other = all.find((p) => p.device === w.device);
      return other ? `${w.name} (link layer ${other.link_layer}, not InfiniBand)` : `${w.name} (not on this node)`;
    });
  return { ports, missing };
}

interface Counted {
  metrics: Record<string, number | null>;
  unmeasured: Record<string, string>;
  details: Record<string, string>;
}

export function inventoryMetrics(inv: NodeInventory, params: InventoryParams = {}): Counted {
  const out: Counted = { metrics: {}, unmeasured: {}, details: {} };
  const why = (inv.unmeasured ?? {}) as Record<string, string>;
  const set = (metric: string, value: number | null, detail?: string, reason?: string) => {
    out.metrics[metric] = value;
    if (value === null) out.unmeasured[metric] = reason ?? "not reported by the node";
    if (detail) out.details[metric] = detail;
  };
  const gpus = inv.gpus as Obj[];
  const gpusReason = why.gpus ?? (typeof inv.no_gpu_reason === "string" && gpus.length === 0 && !/lists no GPU/.test(inv.no_gpu_reason) ? inv.no_gpu_reason : undefined);

  if (gpusReason) {
    for (const m of [
      "gpu_count",
      "nvlink_inactive",
      "fabric_not_ready",
      "ecc_uncorrected",
      "ecc_dram_uncorrected",
      "ecc_sram_uncorrected",
      "sram_threshold_exceeded",
      "remapped_rows_pending",
      "remap_failure",
      "remapped_rows",
      "retired_pages",
      "ecc_disabled",
      "mig_enabled",
      "persistence_off",
    ]) {
      set(m, null, undefined, `the GPUs could not be listed (${gpusReason})`);
    }
  } else {
    set("gpu_count", gpus.length, gpus.length ? gpus.map(gpuName).join(", ") : "nvidia-smi lists no GPU");
    nvlinkMetrics(gpus, params, why.nvlinks, set);
    fabricMetric(gpus, params, set);
    // IMEX only matters where GPUs share memory across nodes: judged with nvlinkDomain rack, absent otherwise
    if (params.nvlinkDomain === "rack") {
      const imex = imexNotReady(inv.imex, why.imex);
      set("imex_not_ready", imex.value, imex.detail, imex.reason);
    }
    eccMetrics(gpus, set);
    const modes = (metric: string, bad: (g: Obj) => boolean | null, label: string) => {
      const known = gpus.filter((g) => bad(g) !== null);
      if (gpus.length && known.length === 0) return set(metric, null, undefined, `nvidia-smi -q shows no ${label} for any GPU`);
      const hits = known.filter((g) => bad(g) === true);
      set(
        metric,
        hits.length,
        hits.length
          ? hits.map((g) => `${gpuName(g)}: ${label} ${g[label === "ECC mode" ? "ecc_mode" : label === "MIG mode" ? "mig_mode" : "persistence_mode"]}`).join("; ")
          : undefined,
      );
    };
    modes("ecc_disabled", (g) => (g.ecc_mode == null ? null : g.ecc_mode !== "Enabled"), "ECC mode");
    modes("mig_enabled", (g) => (g.mig_mode == null || g.mig_mode === "N/A" ? null : g.mig_mode === "Enabled"), "MIG mode");
    modes("persistence_off", (g) => (g.persistence_mode == null ? null : g.persistence_mode !== "Enabled"), "persistence mode");
  }

  ibMetrics(inv, params, why.ib_ports, set);

  if (Array.isArray(inv.xid_events)) {
    const events = arr(inv.xid_events);
    set(
      "xid_events",
      events.length,
      events.length
        ? events
            .slice(0, 10)
            .map((e) => `${e.kind === "sxid" ? "SXid" : "Xid"} ${e.code} on PCI ${e.pci}`)
            .join("; ")
        : undefined,
    );
  } else {
    set(
      "xid_events",
      null,
      undefined,
      why.xid_events ?? (typeof inv.xid_unreadable === "string" ? `the kernel log could not be read (${inv.xid_unreadable})` : "the node reported no kernel log"),
    );
  }

  const nics = computePorts(inv, params.hcas).ports;
  if (params.baseline) {
    const b = baselineCheck(inv, nics, params.baseline);
    if (b.unreadable.length) set("baseline_mismatches", null, undefined, `baseline versions could not be read: ${b.unreadable.join(", ")}`);
    else set("baseline_mismatches", b.findings.length, b.findings.map(describeFinding).join("; ") || undefined);
  } else set("baseline_mismatches", null, undefined, "the inventory test names no baseline (inventory.baseline)");
  const config = nodeConfigCheck(inv, nics, params.config);
  if (config.unreadable.length) set("config_mismatches", null, undefined, `pinned values could not be read: ${config.unreadable.join(", ")}`);
  else set("config_mismatches", config.findings.length, config.findings.map(describeFinding).join("; ") || undefined);
  return out;
}

type Setter = (metric: string, value: number | null, detail?: string, reason?: string) => void;

function nvlinkMetrics(gpus: Obj[], params: InventoryParams, unreadable: string | undefined, set: Setter) {
  if (unreadable || gpus.some((g) => g.nvlinks === null)) {
    return set("nvlink_inactive", null, undefined, `NVLink status could not be read (${unreadable ?? "nvidia-smi nvlink -s gave nothing"})`);
  }
  let missing = 0;
  const parts: string[] = [];
  const unknown: string[] = [];
  for (const g of gpus) {
    const links = arr(g.nvlinks);
    const active = links.filter(isActive).length;
    const expected = params.nvlinksPerGpu ?? expectedNvlinks(String(g.name));
    if (expected === null) {
      // a model we have no count for: only links reported down can be counted
      const down = links.length - active;
      missing += down;
      if (down) parts.push(`${gpuName(g)}: ${down} of ${links.length} links inactive`);
      unknown.push(String(g.name));
      continue;
    }
    const short = Math.max(0, expected - active);
    missing += short;
    if (short)
      parts.push(
        `${gpuName(g)}: ${active} of ${expected} links active${
          links.length > active
            ? ` (inactive: ${links
                .filter((l) => !isActive(l))
                .map((l) => l.link)
                .join(", ")})`
            : ""
        }`,
      );
  }
  if (unknown.length) parts.push(`links per GPU unknown for ${[...new Set(unknown)].join(", ")}: set inventory.nvlinksPerGpu`);
  set("nvlink_inactive", missing, parts.join("; ") || undefined);
}

// Health wordings nvidia-smi prints that mean the fabric is fine or cannot say (older drivers, boards without it)
const HEALTH_OK = new Set(["Healthy", "N/A", "Not Supported"]);
const BANDWIDTH_OK = new Set(["Full", "N/A", "Not Supported"]);
const ZERO_UUID = /^0{8}-0{4}-0{4}-0{4}-0{12}$/;

/**
 * Why a GPU's NVLink fabric is not ready, or null when it is. State and Status are what the fabric
 * manager reports (Status only means something once State is Completed: NVML's own doc). A fabric
 * whose Health says Unhealthy while State/Status say Completed/Success exists (kubernetes-sigs/
 * dra-driver-nvidia-gpu#626). On a multi-node NVLink domain (GB200 NVL72) a GPU outside any clique
 * shows CliqueId 0 and a zero ClusterUUID, even with State Completed (Azure/azhpc-images#506, where a
 * check looking only for N/A let such nodes pass); on a single-node NVSwitch board (HGX) that is normal.
 */
function fabricProblem(g: Obj, rack: boolean): string | null {
  const why: string[] = [];
  if (g.fabric_state !== "Completed" || g.fabric_status !== "Success") why.push(`State ${g.fabric_state}, Status ${g.fabric_status}`);
  const summary = g.fabric_health_summary;
  if (typeof summary === "string" && !HEALTH_OK.has(summary)) why.push(`Health Summary ${summary}`);
  const bandwidth = g.fabric_health_bandwidth;
  if (typeof bandwidth === "string" && !BANDWIDTH_OK.has(bandwidth)) why.push(`Health Bandwidth ${bandwidth}`);
  if (rack) {
    if (g.fabric_clique_id == null || g.fabric_clique_id === "0" || g.fabric_clique_id === "N/A") why.push(`CliqueId ${g.fabric_clique_id ?? "absent"}`);
    if (g.fabric_cluster_uuid == null || g.fabric_cluster_uuid === "N/A" || ZERO_UUID.test(String(g.fabric_cluster_uuid)))
      why.push(`ClusterUUID ${g.fabric_cluster_uuid ?? "absent"}`);
  }
  return why.length ? why.join(", ") : null;
}

const cliqueOf = (g: Obj) => `CliqueId ${g.fabric_clique_id}, ClusterUUID ${g.fabric_cluster_uuid}`;

function fabricMetric(gpus: Obj[], params: InventoryParams, set: Setter) {
  if (gpus.length === 0) return set("fabric_not_ready", 0);
  const missing = gpus.filter((g) => g.fabric_state == null);
  if (missing.length) return set("fabric_not_ready", null, undefined, `nvidia-smi -q shows no Fabric state for ${missing.map(gpuName).join(", ")} (driver before 535?)`);
  const na = gpus.filter((g) => g.fabric_state === "N/A");
  if (na.length) return set("fabric_not_ready", null, undefined, `Fabric State is N/A on ${na.map(gpuName).join(", ")}: no NVSwitch fabric on this board`);
  const rack = params.nvlinkDomain === "rack";
  const bad = new Map<Obj, string>();
  for (const g of gpus) {
    const why = fabricProblem(g, rack);
    if (why) bad.set(g, why);
  }
  if (rack) {
    // a node's GPUs all sit in one NVLink domain: a GPU in another clique than most is cabled or registered wrong
    const ready = gpus.filter((g) => !bad.has(g));
    const counts = new Map<string, number>();
    for (const g of ready) counts.set(cliqueOf(g), (counts.get(cliqueOf(g)) ?? 0) + 1);
    const [major] = [...counts.entries()].sort((a, b) => b[1] - a[1]);
    if (major) for (const g of ready) if (cliqueOf(g) !== major[0]) bad.set(g, `${cliqueOf(g)}, where ${major[1]} of the node's ${ready.length} GPUs have ${major[0]}`);
  }
  const named = [...bad].sort((a, b) => Number(a[0].index) - Number(b[0].index));
  set("fabric_not_ready", bad.size, named.map(([g, why]) => `${gpuName(g)}: Fabric ${why}`).join("; ") || undefined);
}

function eccMetrics(gpus: Obj[], set: Setter) {
  // Volatile counters only: they count since the driver loaded. The aggregate (lifetime) ones keep a
  // DBE that was remapped long ago, which would fail a repaired GPU for life; they stay in raw.
  const sum = (metric: string, pick: (g: Obj) => number | null, noun: string) => {
    if (gpus.length === 0) return set(metric, 0);
    const na = gpus.filter((g) => pick(g) === null);
    if (na.length) {
      const off = na.filter((g) => g.ecc_mode != null && g.ecc_mode !== "Enabled");
      return set(metric, null, undefined, `${noun} are N/A on ${na.map(gpuName).join(", ")}${off.length ? ` (ECC mode ${off[0]!.ecc_mode})` : ""}`);
    }
    const hits = gpus.filter((g) => (pick(g) ?? 0) > 0);
    set(
      metric,
      gpus.reduce((s, g) => s + (pick(g) ?? 0), 0),
      hits.map((g) => `${gpuName(g)}: ${pick(g)}`).join("; ") || undefined,
    );
  };
  const dram = (g: Obj) => num(g.ecc_dram_uncorrected_volatile) ?? (g.ecc_dram_uncorrected_volatile === undefined ? num(g.ecc_uncorrected_volatile) : null);
  const sram = (g: Obj) => num(g.ecc_sram_uncorrected_volatile) ?? (g.ecc_sram_uncorrected_volatile === undefined && g.ecc_dram_uncorrected_volatile === undefined ? 0 : null);
  sum("ecc_dram_uncorrected", dram, "volatile DRAM uncorrectable ECC counters");
  sum("ecc_sram_uncorrected", sram, "volatile SRAM uncorrectable ECC counters");
  sum("ecc_uncorrected", (g) => (dram(g) === null || sram(g) === null ? null : dram(g)! + sram(g)!), "volatile uncorrectable ECC counters");
  const flag = (metric: string, key: string, label: string) => {
    const known = gpus.filter((g) => typeof g[key] === "boolean");
    if (gpus.length && known.length === 0) return set(metric, null, undefined, `nvidia-smi -q shows no "${label}" for any GPU`);
    const hits = known.filter((g) => g[key] === true);
    set(metric, hits.length, hits.map((g) => `${gpuName(g)}: ${label}`).join("; ") || undefined);
  };
  flag("sram_threshold_exceeded", "sram_threshold_exceeded", "SRAM Threshold Exceeded");
  flag("remapped_rows_pending", "remapped_rows_pending", "row remapping pending (reset the GPU)");
  flag("remap_failure", "remapped_rows_failure", "row remapping failed");
  sum(
    "remapped_rows",
    (g) =>
      num(g.remapped_rows_correctable) === null && num(g.remapped_rows_uncorrectable) === null
        ? null
        : (num(g.remapped_rows_correctable) ?? 0) + (num(g.remapped_rows_uncorrectable) ?? 0),
    "remapped row counts",
  );
  sum("retired_pages", (g) => num(g.retired_pages), "retired page counts (A100 and later remap rows instead)");
}

function ibMetrics(inv: NodeInventory, params: InventoryParams, unreadable: string | undefined, set: Setter) {
  if (unreadable || !Array.isArray(inv.ib_ports)) {
    const reason = `the InfiniBand ports could not be read (${unreadable ?? "not reported"})`;
    set("ib_ports_active", null, undefined, reason);
    set("ib_port_rate", null, undefined, reason);
    return;
  }
  const { ports, missing } = computePorts(inv, params.hcas);
  const name = (p: Obj) => `${p.device} port ${p.port}`;
  const active = ports.filter((p) => String(p.state).toUpperCase().includes("ACTIVE"));
  const down = ports.filter((p) => !active.includes(p));
  const notes = [...down.map((p) => `${name(p)} ${p.state ?? "state unknown"}${p.phys_state ? ` (${p.phys_state})` : ""}`), ...missing.map((m) => `compute HCA ${m}`)];
  const scope = params.hcas ? `compute HCAs ${params.hcas.join(",")}` : "all InfiniBand ports";
  set("ib_ports_active", active.length, notes.length ? `${notes.join("; ")} [${scope}]` : `${active.map(name).join(", ") || "none"} [${scope}]`);
  const rated = active.filter((p) => num(p.rate_gbps) !== null);
  if (rated.length === 0) return set("ib_port_rate", null, undefined, active.length ? "no Active compute port reports its rate" : `no Active compute InfiniBand port (${scope})`);
  const slowest = Math.min(...rated.map((p) => num(p.rate_gbps)!));
  const slow = rated.filter((p) => num(p.rate_gbps) === slowest);
  set("ib_port_rate", slowest, `${slow.map(name).join(", ")} at ${slowest} Gb/s`);
}

export function inventoryMeasurement(output: string, params?: InventoryParams): Measurement {
  const result = taggedLines(output, "RESULT").pop();
  if (!result) throw new ParseError("no GPUCHECK_RESULT line in the inventory output");
  const inv = toInventory(result);
  const counted = inventoryMetrics(inv, params);
  return {
    metrics: counted.metrics,
    raw: inv,
    ...(Object.keys(counted.unmeasured).length && { unmeasured: counted.unmeasured }),
    ...(Object.keys(counted.details).length && { details: counted.details }),
  };
}

/**
 * Each node of an inventory test against the run's other nodes (driver, VBIOS, power limit, …): the
 * differing node's config_mismatches grows by its findings, which its check then quotes.
 */
export function addFleetConfigFindings(measurements: Array<Measurement | null>, params: InventoryParams = {}): void {
  const nodes = measurements.filter((m): m is Measurement => m !== null && m.raw !== undefined);
  const findings = fleetConfigCheck(
    nodes.map((m) => ({ inv: m.raw as NodeInventory, nics: computePorts(m.raw as NodeInventory, params.hcas).ports })),
    params.config,
  );
  for (const f of findings) {
    const m = nodes.find((x) => (x.raw as NodeInventory).hostname === f.node)!;
    if (m.metrics.config_mismatches === null || m.metrics.config_mismatches === undefined) continue;
    m.metrics.config_mismatches += 1;
    const details = (m.details ??= {});
    details.config_mismatches = [details.config_mismatches, describeFinding(f)].filter(Boolean).join("; ");
  }
}
