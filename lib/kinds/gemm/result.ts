// The gemm command's GPUCHECK_RESULT line (workload/gpucheck_workload/kinds/gemm.py result) as
// lib/kinds/gemm/parse.ts reads it: the contract between the workload and the binary.
import { z } from "zod";
import { deviceSchema } from "../device-schema.ts";
import { GEMM_DTYPES } from "./params.ts";

// built on first use: a command that never checks a workload result does not pay for its zod objects
export const gemmResult = z.lazy(() => {
  const measured = z.object({
    best_tflops: z.number().positive(),
    best_n: z.number().int().positive().describe("M=N=K of the best shape"),
    median_tflops: z.number().positive().describe("median over the shapes"),
    shapes: z.array(z.object({ n: z.number().int().positive(), tflops: z.number().positive() })).min(1),
  });
  const unmeasured = z.object({ unmeasured: z.string().describe('why the dtype was not run on this device ("CPU: fp8 not measured")') });
  const device = deviceSchema();
  const rank = z.object({
    rank: z.number().int().nonnegative(),
    local_rank: z.number().int().nonnegative(),
    host: z.string(),
    device,
    warmup: z
      .object({
        seconds: z.number().nonnegative().describe("how long the warm-up lasted"),
        calls: z.number().int().nonnegative(),
        dtype: z.enum(GEMM_DTYPES).optional(),
        n: z.number().int().positive().optional().describe("M=N=K of the warm-up's multiplies: the sweep's largest"),
        skipped: z.string().optional().describe("why the warm-up did not run, or did not finish"),
      })
      .optional()
      .describe("the matmul every rank ran before the sweep (absent from results of gpucheck before the warm-up)"),
    dtypes: z.partialRecord(z.enum(GEMM_DTYPES), z.union([measured, unmeasured])),
    checksum: z.object({ n: z.number().int().positive(), dtype: z.enum(["bf16", "fp32"]), sha256: z.string().regex(/^[0-9a-f]{64}$/) }),
  });
  return z.object({
    world_size: z.number().int().positive(),
    backend: z.enum(["nccl", "gloo"]),
    torch: z.string(),
    sizes: z.array(z.number().int().positive()).min(1),
    iters: z.number().int().positive(),
    warmup: z.number().int().nonnegative(),
    warmup_seconds: z.number().nonnegative().optional().describe("the warm-up asked for, seconds"),
    ranks: z.array(rank).min(1),
    checksum: z.object({
      mismatched_ranks: z.array(z.number().int().nonnegative()).describe("ranks whose hash differs from the majority of the ranks with the same device model"),
      notes: z.array(z.string()).describe("device models whose ranks had no majority hash"),
    }),
  });
});
