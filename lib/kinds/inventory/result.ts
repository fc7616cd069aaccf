// The inventory command's GPUCHECK_RESULT (workload/gpucheck_workload/kinds/inventory.py collect()) as
// lib/kinds/inventory/parse.ts reads it; the same object is each node's GPUCHECK_INVENTORY line. Every
// part that could not be read is null with its reason under `unmeasured`, never left out.
import { z } from "zod";

// built on first use: a command that never checks a workload result does not pay for its zod objects
export const inventoryResult = z.lazy(() => {
  const text = () => z.string().nullable();
  const count = () => z.number().int().nonnegative().nullable();

  const gpu = z
    .object({
      index: z.number().int().nonnegative(),
      name: z.string(),
      uuid: text().optional(),
      serial: text().optional(),
      pci_bus_id: text().optional(),
      ecc_mode: text().optional(),
      ecc_uncorrected_volatile: count().optional(),
      ecc_dram_uncorrected_volatile: count().optional(),
      ecc_sram_uncorrected_volatile: count().optional(),
      sram_threshold_exceeded: z.boolean().nullable().optional(),
      remapped_rows_pending: z.boolean().nullable().optional(),
      remapped_rows_failure: z.boolean().nullable().optional(),
      retired_pages: count().optional(),
      persistence_mode: text().optional(),
      mig_mode: text().optional(),
      fabric_state: text().optional(),
      fabric_status: text().optional(),
      fabric_clique_id: text().optional(),
      fabric_cluster_uuid: text().optional(),
      fabric_health_summary: text().optional(),
      fabric_health_bandwidth: text().optional(),
      nvlinks: z
        .array(z.object({ link: z.number().int(), state: z.string() }).loose())
        .nullable()
        .describe("null: `nvidia-smi nvlink -s` failed (see unmeasured.nvlinks)"),
    })
    .loose();

  const port = z
    .object({
      device: z.string(),
      port: z.number().int().positive(),
      state: z.string(),
      rate_gbps: z.number().nullable(),
      link_layer: z.string(),
    })
    .loose();

  const xidEvent = z.object({ kind: z.enum(["xid", "sxid"]), code: z.number().int(), pci: z.string() }).loose();

  return z.object({
    hostname: z.string().min(1),
    cpu: z.object({ model: text(), cores: z.number().int().positive().nullable() }),
    memory_gb: z.number().nullable(),
    gpus: z.array(gpu),
    driver: text(),
    cuda: text(),
    ib_ports: z.array(port).nullable().describe("null: neither sysfs nor ibstat could be read (see unmeasured.ib_ports)"),
    ib_source: z.enum(["sysfs", "ibstat"]).nullable(),
    ofed: text(),
    // the versions a baseline: block compares (lib/baseline); absent from inventories before they were read
    kernel: text().optional().describe("uname -r"),
    fabric_manager: text().optional().describe("nv-fabricmanager --version; null: not installed or unreadable (see unmeasured.fabric_manager)"),
    dcgm: text().optional().describe("dcgmi --version; null: not installed or unreadable (see unmeasured.dcgm)"),
    xid_events: z.array(xidEvent).nullable().describe("null: the kernel log could not be read (see unmeasured.xid_events)"),
    xid_source: text(),
    imex: z
      .object({
        nodes: z.array(z.object({ index: z.number().int().nonnegative(), address: z.string(), status: z.string(), version: z.string() }).loose()),
        not_connected: z.array(z.tuple([z.number().int(), z.number().int(), z.string()])),
        domain_state: z.string(),
      })
      .nullable()
      .optional()
      .describe("`nvidia-imex-ctl -N`; null: it could not be run or read (see unmeasured.imex)"),
    unmeasured: z.record(z.string(), z.string()),
    no_gpu_reason: z.string().optional(),
    torch: text(),
    torch_cuda: text(),
    nccl: text(),
  });
});
