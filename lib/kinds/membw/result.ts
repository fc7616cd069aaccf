// The membw command's GPUCHECK_RESULT line (workload/gpucheck_workload/membw.py) as
// lib/parsers/membw.ts reads it: the contract between the workload and the binary.
import { z } from "zod";
import { deviceSchema } from "../device-schema.ts";

export const MEMBW_OPS = ["copy", "triad"] as const;

// built on first use: a command that never checks a workload result does not pay for its zod objects
export const membwResult = z.lazy(() => {
  const measured = z.object({
    best_gbps: z.number().positive().describe("the fastest timed call, GB/s (1 GB = 1e9 bytes)"),
    median_gbps: z.number().positive().describe("the median timed call, GB/s"),
    bytes: z.number().int().positive().describe("bytes moved per call: 2 × size for the copy, 3 × size for the triad"),
    gbps: z.array(z.number().positive()).min(1).describe("every timed call, in order"),
  });
  const unmeasured = z.object({ unmeasured: z.string().describe('why the operation did not run ("copy of 2147483648-byte buffers failed: CUDA out of memory…")') });
  const rank = z.object({
    rank: z.number().int().nonnegative(),
    local_rank: z.number().int().nonnegative(),
    host: z.string(),
    device: deviceSchema(),
    ops: z.object({ copy: z.union([measured, unmeasured]), triad: z.union([measured, unmeasured]) }),
  });
  return z.object({
    world_size: z.number().int().positive(),
    backend: z.enum(["nccl", "gloo"]),
    torch: z.string(),
    size: z.number().int().positive().describe("bytes per buffer"),
    iters: z.number().int().positive(),
    warmup: z.number().int().nonnegative(),
    ranks: z.array(rank).min(1),
  });
});
