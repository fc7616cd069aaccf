// The dcgm command's GPUCHECK_RESULT line (workload/gpucheck_workload/kinds/dcgm.py) as lib/kinds/dcgm/parse.ts
// reads it: the contract between the workload and the binary.
import { z } from "zod";

// built on first use: a command that never checks a workload result does not pay for its zod objects
export const dcgmResult = z.lazy(() =>
  z.object({
    host: z.string(),
    level: z.number().int().min(1).max(4),
    command: z.array(z.string()).describe("the dcgmi command line the workload ran"),
    timeout_s: z.number().positive(),
    exit_code: z
      .number()
      .int()
      .nullable()
      .describe("dcgmi's exit status; null when it did not run or was stopped (dcgmi exits non-zero when a test fails, and still prints its JSON)"),
    document: z.unknown().nullable().describe('the JSON dcgmi printed ("DCGM Diagnostic" from DCGM 4.x, "DCGM GPU Diagnostic" from 3.x), null when it printed none'),
    unread: z.string().optional().describe('why there is no document: "dcgmi not found on PATH …", the timeout, "Unable to connect to host engine", an exit code with no JSON'),
    stderr: z.string().describe("the end of dcgmi's stderr"),
    gpus: z
      .array(z.object({ index: z.number().int().nonnegative(), uuid: z.string().nullable(), pci_bus_id: z.string().nullable(), name: z.string().nullable() }))
      .nullable()
      .describe("the node's GPUs from nvidia-smi -q in the same run, to name DCGM's GPU ids; null when it could not be read"),
    gpus_unread: z.string().optional().describe("why nvidia-smi -q could not be read"),
  }),
);
