// The pcie command's GPUCHECK_RESULT line (workload/gpucheck_workload/kinds/pcie.py) as
// lib/kinds/pcie/parse.ts reads it: the contract between the workload and the binary.
import { z } from "zod";
import { copyOp, copyResult } from "../copy-result.ts";
import { deviceSchema } from "../device-schema.ts";

import { PCIE_OPS, PCIE_PHASES } from "./params.ts";

export { PCIE_OPS, PCIE_PHASES };

// built on first use: a command that never checks a workload result does not pay for its zod objects
export const pcieResult = z.lazy(() => {
  const op = copyOp("size, or 2 × size for bidir");
  const phase = z.object({ h2d: op, d2h: op, bidir: op }).describe("solo: this GPU alone on its node; all: every GPU of the node at once");
  const count = z.number().int().nonnegative().nullable();
  const link = z.union([
    z.object({ unread: z.string().describe('why the GPU link was not read ("no NVIDIA GPU (nvidia-smi not found)")') }),
    z.object({
      gen: count.describe("PCIe Generation Current, read while this GPU's copies ran"),
      gen_max: count.describe("PCIe Generation Max"),
      width: count.describe("Link Width Current (lanes)"),
      width_max: count.describe("Link Width Max"),
      replays_before: count.describe("Replays Since Reset before the copies"),
      replays_after: count.describe("Replays Since Reset after them"),
      replays_unread: z.string().optional(),
    }),
  ]);
  const nic = z.object({
    device: z.string().describe("the HCA's name under /sys/class/infiniband (mlx5_0)"),
    pci_bus_id: z.string(),
    speed_gts: z.number().nullable().describe("current_link_speed in GT/s (32 = Gen5)"),
    speed_max_gts: z.number().nullable(),
    width: count,
    width_max: count,
    unread: z.string().optional().describe("the sysfs files that could not be read, and why"),
  });
  const rank = z.object({
    rank: z.number().int().nonnegative(),
    local_rank: z.number().int().nonnegative(),
    host: z.string(),
    device: deviceSchema(),
    size: z.number().int().positive(),
    solo: phase,
    all: phase,
    link: link,
    nics: z.array(nic).nullable().describe("local rank 0: the node's InfiniBand HCAs (empty: none); other ranks: null"),
  });
  return copyResult(rank);
});
