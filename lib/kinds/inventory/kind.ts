// kind: inventory: what a node has (GPUs, ECC and row remapping, NVLink and fabric state, the
// compute InfiniBand ports, pinned settings), one process per node, judged per node.
import * as z from "../../core/schema.ts";
import { higher, lower } from "../../core/metrics.ts";
import { addFleetConfigFindings, inventoryMeasurement, inventoryMetrics, toInventory } from "./parse.ts";
import type { KindBlocks, Measurement, NodeInventory, TestSpec } from "../../core/types.ts";
import { given } from "../given.ts";
import { type InventoryParams, inventoryBlock } from "./params.ts";
import type { TestKind } from "../../core/kind.ts";

declare module "../../core/types.ts" {
  interface KindBlocks {
    inventory: { inventory?: InventoryParams };
  }
}

export const inventory: TestKind<"inventory", InventoryParams, KindBlocks["inventory"]> = {
  name: "inventory",
  summary: "what each node has: GPUs, ECC and row remapping, NVLink and fabric state, compute InfiniBand ports, pinned settings",
  block: z.lazy(inventoryBlock),
  keys: [
    { key: "hcas", doc: 'the compute HCAs (NCCL_IB_HCA names, or "mlx5_0,mlx5_3"); absent: every InfiniBand port; Ethernet/RoCE and storage ports never count' },
    { key: "nvlinksPerGpu", doc: "NVLink links each GPU must have up; absent: from the GPU model (18 on H100/H200 SXM, 12 on A100 SXM)" },
    { key: "config", doc: "values every node and GPU must have: { driver: 550.90.07, power_limit_w: 700, pcie_gen: 5 }" },
    {
      key: "nvlinkDomain",
      doc: "node (default): the NVLink fabric ends at the node (HGX: CliqueId 0 is normal); rack: GPUs join a multi-node NVLink domain (GB200 NVL72): each GPU must have a CliqueId and ClusterUUID, the same on every GPU of the node, and imex_not_ready counts the IMEX domain's problems (nvidia-imex-ctl -N)",
    },
    {
      key: "baseline",
      doc: "firmware and software versions every node must run (kernel, driver, cuda, vbios, nic_firmware, nic_psid, ofed, nccl, fabric_manager, dcgm): `gpucheck baseline capture` writes one from a golden node",
    },
  ],
  ranksPerNode: 1,
  fixedRanksPerNode: 1,
  perNode: true,
  // only the keys written: an inventory without a block keeps none in results.json
  resolve: (block) => (block ? { inventory: given(block) as InventoryParams } : {}),
  params: (spec: TestSpec) => spec.inventory,
  metrics: {
    gpu_count: higher("count", "GPUs nvidia-smi lists on the node", { total: "node" }),
    nvlink_inactive: lower("count", "NVLink links short of the GPU model's count (18 on H100/H200 SXM; inventory.nvlinksPerGpu overrides), summed over GPUs"),
    fabric_not_ready: lower(
      "count",
      "GPUs whose NVLink fabric is not ready (nvidia-smi -q Fabric, driver 535+): State not Completed, Status not Success, Health Summary Unhealthy, Health Bandwidth not Full; with nvlinkDomain: rack also CliqueId 0, an all-zero ClusterUUID, or a clique other than the node's other GPUs'",
    ),
    imex_not_ready: lower(
      "count",
      "IMEX domain problems the node's daemon reports (nvidia-imex-ctl -N), with nvlinkDomain: rack only: nodes not READY, pairs of the connectivity table not C (Connected), a Domain State other than UP; null when nvidia-imex-ctl could not be run",
    ),
    ecc_uncorrected: lower("count", "uncorrectable ECC errors since the driver loaded (volatile DRAM + SRAM; lifetime counters are not added)"),
    ecc_dram_uncorrected: lower("count", "volatile DRAM uncorrectable ECC errors"),
    ecc_sram_uncorrected: lower("count", "volatile SRAM uncorrectable ECC errors (parity + SEC-DED)"),
    sram_threshold_exceeded: lower("count", "GPUs whose SRAM error threshold is exceeded (replace the GPU)"),
    remapped_rows_pending: lower("count", "GPUs with a row remapping pending (needs a reset)"),
    remap_failure: lower("count", "GPUs on which a row remapping failed (replace the GPU)"),
    remapped_rows: lower("count", "rows remapped over the GPUs' life; a warning sign when high: set your own max"),
    retired_pages: lower("count", "retired memory pages (pre-A100 GPUs; A100 and later remap rows instead)"),
    ecc_disabled: lower("count", "GPUs with ECC mode not Enabled"),
    mig_enabled: lower("count", "GPUs with MIG mode Enabled"),
    persistence_off: lower("count", "GPUs with persistence mode not Enabled"),
    ib_ports_active: higher("count", "InfiniBand link-layer ports in state Active on the compute HCAs (inventory.hcas; all IB ports when not named); Ethernet ports never count"),
    ib_port_rate: higher("Gb/s", "the lowest rate among the Active compute InfiniBand ports (400 for NDR)"),
    baseline_mismatches: lower("count", "parts whose firmware or software version differs from the inventory test's baseline (inventory.baseline), each named with both values"),
    config_mismatches: lower("count", "settings that differ between the node's GPUs or NICs, from the suite's pins (inventory.config), or from the other nodes of the run"),
  },
  headline: "gpu_count",
  // inventory describes the node it runs on: no global --inventory, no telemetry beside it
  telemetry: false,
  args: () => ["inventory"],
  measure: (output, { params }) => inventoryMeasurement(output, params),
  plots: () => [],
  // GPUs are left out: the inventory counts them itself (gpu_count) and names the missing one, which a preflight stop would hide
  needs: () => ({ torch: false, gpus: 0, nccl: false }),
  fleet: (measurements, params) => addFleetConfigFindings(measurements, params),
  // counted against what the judging suite expects of a node (its HCAs, link count, pins), from the saved raw inventory
  recount: (measurements, params) => {
    const out = measurements.map((m) => {
      if (!m || typeof m.raw !== "object" || m.raw === null) return m;
      const inv = toInventory(m.raw as NodeInventory);
      const c = inventoryMetrics(inv, params);
      const recounted: Measurement = { ...m, metrics: { ...m.metrics, ...c.metrics }, raw: inv };
      delete recounted.unmeasured;
      delete recounted.details;
      if (Object.keys(c.unmeasured).length) recounted.unmeasured = c.unmeasured;
      if (Object.keys(c.details).length) recounted.details = c.details;
      return recounted;
    });
    addFleetConfigFindings(out, params);
    return out;
  },
  resultSource: "the GPUCHECK_RESULT line of `gpucheck_workload inventory` (workload/gpucheck_workload/inventory.py), as lib/kinds/inventory/parse.ts reads it",
};
