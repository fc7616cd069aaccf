// A rank's device as the per-GPU kinds report it (workload/gpucheck_workload/device_id.py): part of
// the gemm, membw and pcie results' contracts.
import { z } from "zod";

export const deviceSchema = () =>
  z.object({
    type: z.enum(["cuda", "cpu"]),
    name: z.string().describe("torch's GPU name, or the CPU model"),
    index: z.number().int().nonnegative().nullable().describe("nvidia-smi's index of the GPU (null on CPU, or when it could not be matched)"),
    uuid: z.string().nullable(),
    pci_bus_id: z.string().nullable(),
    cuda_index: z.number().int().nonnegative().optional().describe("torch's device index (renumbered by CUDA_VISIBLE_DEVICES)"),
    capability: z.string().optional(),
    unnamed: z.string().nullable().optional().describe("why index/uuid/pci_bus_id are null on a GPU"),
  });
