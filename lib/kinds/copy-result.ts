// The parts of the copy kinds' results (membw, pcie) that are the same: one timed operation, and the
// result around the ranks (workload/gpucheck_workload/bandwidth.py).
import { z } from "zod";

/** one operation on one rank: its GB/s, or why it did not run */
export const copyOp = (bytes: string) =>
  z.union([
    z.object({
      best_gbps: z.number().positive().describe("the fastest timed call, GB/s (1 GB = 1e9 bytes)"),
      median_gbps: z.number().positive().describe("the median timed call, GB/s"),
      bytes: z.number().int().positive().describe(`bytes moved per call: ${bytes}`),
      gbps: z.array(z.number().positive()).min(1).describe("every timed call, in order"),
    }),
    z.object({ unmeasured: z.string().describe('why the operation did not run ("… failed: CUDA out of memory …")') }),
  ]);

/** the result rank 0 prints: the run's settings and every rank's entry */
export const copyResult = (rank: z.ZodType) =>
  z.object({
    world_size: z.number().int().positive(),
    backend: z.enum(["nccl", "gloo"]),
    torch: z.string(),
    size: z.number().int().positive().describe("bytes per buffer"),
    iters: z.number().int().positive(),
    warmup: z.number().int().nonnegative(),
    ranks: z.array(rank).min(1),
  });
