// Configuration sanity: the settings that must be the same on every GPU of a node and every node of
// a run. One GPU left at a lower power limit, one node on another driver or a NIC trained at Gen4 all
// measure "fine" alone and make the slowest rank of every collective; they are found by comparing,
// not by a floor.
import type { NodeInventory } from "../../core/types.ts";

type Obj = Record<string, unknown>;

/**
 * Fields a suite may pin (`inventory: { config: … }`), and where each is read (`from`: the inventory's
 * key when it is not the field's name).
 *
 * A GPU's PCIe generation and width are its link's capability, nvidia-smi -q's `Max` (the lower of
 * `Device Max` and `Host Max`: what the slot allows), never `Current`: the inventory is read while the
 * GPU idles, and an idle GPU drops its link to Gen1 to save power, so a Current reading would fail a
 * healthy GPU. A link trained below its capability shows only under load: the pcie kind reads it
 * while its copies run (pcie_link_degraded). A NIC keeps its trained link when idle, so its current
 * speed and width are what it runs at.
 */
export const CONFIG_FIELDS: Record<string, { on: "gpu" | "node" | "nic"; what: string; from?: string }> = {
  power_limit_w: { on: "gpu", what: "enforced power limit (W)" },
  app_clock_graphics_mhz: { on: "gpu", what: "application graphics clock (MHz)" },
  app_clock_memory_mhz: { on: "gpu", what: "application memory clock (MHz)" },
  max_clock_sm_mhz: { on: "gpu", what: "maximum SM clock (MHz)" },
  max_clock_memory_mhz: { on: "gpu", what: "maximum memory clock (MHz)" },
  persistence_mode: { on: "gpu", what: "persistence mode" },
  mig_mode: { on: "gpu", what: "MIG mode" },
  ecc_mode: { on: "gpu", what: "ECC mode" },
  vbios: { on: "gpu", what: "VBIOS version" },
  name: { on: "gpu", what: "GPU model" },
  pcie_gen: { on: "gpu", what: "PCIe generation the GPU's slot allows (nvidia-smi -q Max; the idle Current is never judged)", from: "pcie_gen_max" },
  pcie_width: { on: "gpu", what: "PCIe width the GPU's slot allows (nvidia-smi -q Max; the idle Current is never judged)", from: "pcie_width_max" },
  driver: { on: "node", what: "NVIDIA driver version" },
  cuda: { on: "node", what: "CUDA version the driver supports" },
  nccl: { on: "node", what: "NCCL version torch was built with" },
  torch: { on: "node", what: "torch version" },
  ofed: { on: "node", what: "MLNX_OFED/DOCA mlx5_core version" },
  kernel: { on: "node", what: "Linux kernel release (uname -r)" },
  fabric_manager: { on: "node", what: "NVIDIA Fabric Manager version (nv-fabricmanager --version)" },
  dcgm: { on: "node", what: "DCGM version (dcgmi --version)" },
  nic_firmware: { on: "nic", what: "HCA firmware version (sysfs fw_ver, ibstat)", from: "firmware" },
  nic_psid: { on: "nic", what: "HCA board PSID (sysfs board_id)", from: "board_id" },
  nic_rate_gbps: { on: "nic", what: "InfiniBand port rate (Gb/s)" },
  nic_pcie_speed: { on: "nic", what: "PCIe speed the NIC trained to" },
  nic_pcie_width: { on: "nic", what: "PCIe width the NIC trained to" },
};

export interface ConfigFinding {
  node: string;
  /** "GPU 3 (00000000:3A:00.0)", "mlx5_4 port 1", or "" for the node itself */
  part: string;
  field: string;
  value: string;
  expected: string;
  /** "the node's other GPUs", "the suite's pin", "3 of 4 nodes" */
  against: string;
}

export function describeFinding(f: ConfigFinding): string {
  const who = f.part ? `${f.node} ${f.part}` : f.node;
  return `${who}: ${f.field} ${f.value} ≠ ${f.expected} (${f.against})`;
}

const text = (v: unknown): string | null => (v === null || v === undefined || v === "" ? null : String(v));

function gpuPart(g: Obj): string {
  const bus = text(g.pci_bus_id);
  const serial = text(g.serial);
  return `GPU ${g.index}${bus ? ` (${bus}${serial ? `, serial ${serial}` : ""})` : ""}`;
}

/** Each part of a node with its value of one field: its GPUs, its compute NICs, or the node itself. */
export function partsOf(inv: NodeInventory, field: string, nics: Obj[]): Array<{ part: string; value: string | null }> {
  const on = CONFIG_FIELDS[field]!.on;
  if (on === "gpu") return (inv.gpus as Obj[]).map((g) => ({ part: gpuPart(g), value: text(g[CONFIG_FIELDS[field]!.from ?? field]) }));
  if (on === "nic") {
    const key = CONFIG_FIELDS[field]!.from ?? (field === "nic_rate_gbps" ? "rate_gbps" : field === "nic_pcie_speed" ? "pcie_speed" : "pcie_width");
    return nics.map((p) => ({ part: `${p.device} port ${p.port}`, value: text(p[key]) }));
  }
  return [{ part: "", value: text(inv[field]) }];
}

/** The value most parts have; none when there is no strict majority (then nothing is named). */
function majority(values: string[]): { value: string; count: number } | null {
  const counts = new Map<string, number>();
  for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
  const [best] = [...counts.entries()].sort((a, b) => b[1] - a[1]);
  return best && best[1] * 2 > values.length ? { value: best[0], count: best[1] } : null;
}

export interface ConfigCheck {
  findings: ConfigFinding[];
  /** pinned fields that could not be read: the check cannot pass on them */
  unreadable: string[];
}

/** Inside one node: GPUs and NICs against the node's majority, and everything against the suite's pins. */
export function nodeConfigCheck(inv: NodeInventory, nics: Obj[], pins: Record<string, string | number> = {}): ConfigCheck {
  const findings: ConfigFinding[] = [];
  const unreadable: string[] = [];
  for (const field of Object.keys(CONFIG_FIELDS)) {
    const parts = partsOf(inv, field, nics);
    const pin = pins[field];
    if (pin !== undefined) {
      for (const p of parts) {
        if (p.value === null) unreadable.push(`${field} of ${p.part || inv.hostname}`);
        else if (!sameValue(p.value, pin)) findings.push({ node: inv.hostname, part: p.part, field, value: p.value, expected: String(pin), against: "pinned by the suite" });
      }
      if (parts.length === 0) unreadable.push(`${field} (no ${CONFIG_FIELDS[field]!.on === "gpu" ? "GPU" : "compute NIC"} found)`);
      continue;
    }
    if (CONFIG_FIELDS[field]!.on === "node") continue;
    const known = parts.filter((p): p is { part: string; value: string } => p.value !== null);
    const m = majority(known.map((p) => p.value));
    if (!m) continue;
    for (const p of known) {
      if (p.value !== m.value)
        findings.push({
          node: inv.hostname,
          part: p.part,
          field,
          value: p.value,
          expected: m.value,
          against: `${m.count} of ${known.length} ${CONFIG_FIELDS[field]!.on === "gpu" ? "GPUs" : "NICs"} on the node`,
        });
    }
  }
  return { findings, unreadable };
}

/** Across nodes: each node's value (its GPUs' majority for per-GPU fields) against the run's majority. */
export function fleetConfigCheck(nodes: Array<{ inv: NodeInventory; nics: Obj[] }>, pins: Record<string, string | number> = {}): ConfigFinding[] {
  if (nodes.length < 2) return [];
  const findings: ConfigFinding[] = [];
  for (const field of Object.keys(CONFIG_FIELDS)) {
    if (pins[field] !== undefined) continue; // each node already answered to the pin
    const perNode = nodes.map(({ inv, nics }) => {
      const values = partsOf(inv, field, nics)
        .map((p) => p.value)
        .filter((v): v is string => v !== null);
      return { node: inv.hostname, value: values.length ? (majority(values)?.value ?? null) : null };
    });
    const known = perNode.filter((n): n is { node: string; value: string } => n.value !== null);
    const m = majority(known.map((n) => n.value));
    if (!m) continue;
    for (const n of known) {
      if (n.value !== m.value) findings.push({ node: n.node, part: "", field, value: n.value, expected: m.value, against: `${m.count} of ${known.length} nodes` });
    }
  }
  return findings;
}

/** 700 and "700.00 W" are the same power limit; versions compare as text. */
function sameValue(value: string, pin: string | number): boolean {
  if (typeof pin === "number") return Number.parseFloat(value) === pin;
  return value.trim().toLowerCase() === pin.trim().toLowerCase();
}
