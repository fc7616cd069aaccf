// The burn command's GPUCHECK_RESULT line (workload/gpucheck_workload/kinds/burn.py, burn_stats.py) as
// lib/kinds/burn/parse.ts reads it: the contract between the workload and the binary.
import { z } from "zod";
import { deviceSchema } from "../device-schema.ts";

const seconds = (what: string) => z.number().nonnegative().nullable().describe(what);
const running = (what: string) =>
  z
    .object({
      n: z.number().int().nonnegative(),
      mean_s: seconds("mean seconds"),
      std_s: seconds("population standard deviation, seconds"),
      max_s: seconds("the longest, seconds"),
    })
    .describe(what);
// built on first use: a command that never checks a workload result does not pay for its zod objects
// (built at load, these objects were the largest part of loading the kinds: BENCHMARKS.md, start-up)
export const burnResult = z.lazy(() => {
  const rates = z.object({
    iterations: z.number().int().nonnegative(),
    gemm_tflops: z.number().positive().nullable().describe("multiply TFLOP/s over these iterations (null: none)"),
    copy_gbps: z.number().positive().nullable().describe("copy GB/s (read + write, 1 GB = 1e9 bytes) over these iterations"),
  });

  const rank = z.object({
    rank: z.number().int().nonnegative(),
    local_rank: z.number().int().nonnegative(),
    host: z.string(),
    device: deviceSchema(),
    gemm_dtype: z.enum(["bf16", "fp32"]),
    unmeasured: z.string().optional().describe("why this rank ran no iteration (its buffers did not fit, or another rank's)"),
    elapsed_s: z.number().nonnegative().describe("seconds of timed load"),
    iteration: running("the rank's own work per iteration: multiply + copy (the all-reduce waits for every rank, so it is kept apart)"),
    gemm: running("the multiply per iteration"),
    copy: running("the copy per iteration"),
    allreduce: running("the all-reduce per iteration"),
    ...rates.shape,
    window_s: z.number().positive(),
    windows: z.array(
      z.object({
        start_s: z.number().nonnegative(),
        iterations: z.number().int().positive(),
        mean_s: seconds("mean own time per iteration"),
        std_s: seconds("its standard deviation"),
        max_s: seconds("the longest"),
        gemm_tflops: rates.shape.gemm_tflops,
        copy_gbps: rates.shape.copy_gbps,
        allreduce_mean_s: z.number().nonnegative(),
      }),
    ),
    edges: z.object({
      span_s: z.number().positive().describe("the first and last minute, or a tenth of a run shorter than two minutes"),
      first: rates,
      last: rates,
    }),
    raw_s: z.array(z.number().nonnegative()).describe("own time of the first raw_cap iterations, in order"),
    raw_cap: z.number().int().positive(),
    raw_truncated: z.boolean().describe("true when the run had more iterations than raw_s keeps"),
    checksum: z
      .object({
        n: z.number().int().positive().describe("M=N=K of the seeded product"),
        dtype: z.enum(["bf16", "fp32"]),
        every: z.number().int().positive().describe("iterations between two checks"),
        checks: z.number().int().nonnegative(),
        mismatches: z.number().int().nonnegative().describe("checks at which this rank differed from its own first product or its model's majority"),
        self_mismatches: z.number().int().nonnegative(),
        cross_mismatches: z.number().int().nonnegative().describe("including checks where its model's ranks split with no majority"),
        no_majority: z.number().int().nonnegative(),
        mismatch_at_s: z.array(z.number().nonnegative()).describe("start of the first mismatched checks' iterations, seconds into the run"),
      })
      .optional()
      .describe("the checksum repeated through the run (absent from results of gpucheck before it)"),
  });
  return z.object({
    world_size: z.number().int().positive(),
    backend: z.enum(["nccl", "gloo"]),
    torch: z.string(),
    duration_s: z.number().positive(),
    gemm_n: z.number().int().positive(),
    copy_bytes: z.number().int().positive(),
    allreduce_bytes: z.number().int().positive(),
    warmup_iters: z.number().int().nonnegative(),
    checksum_every: z.number().int().positive().optional(),
    ranks: z.array(rank).min(1),
  });
});
