// The train command's GPUCHECK_RESULT line (workload/gpucheck_workload/kinds/train.py _result) as
// lib/kinds/train/parse.ts reads it: the contract between the workload and the binary.
import { z } from "zod";

// built on first use: a command that never checks a workload result does not pay for its zod objects
export const trainResult = z.lazy(() => {
  const num = () => z.number();
  const maybe = () => z.number().nullable();

  return z.object({
    model: z.enum(["resnet18", "resnet50", "transformer"]),
    data: z.string(),
    world_size: z.number().int().positive(),
    device: z.string(),
    backend: z.enum(["nccl", "gloo"]),
    precision: z.enum(["fp32", "bf16"]),
    batch_size: z.number().int().positive(),
    steps: z.number().int().positive(),
    warmup_steps: z.number().int().nonnegative(),
    torch: z.string(),
    samples_per_s: num(),
    samples_per_s_per_gpu: num(),
    tokens_per_s: maybe().describe("transformer only"),
    tflops: maybe().describe("transformer only"),
    tflops_per_gpu: maybe(),
    params: z.number().int().positive(),
    step_time_ms: z.object({ mean: maybe(), p50: maybe(), p95: maybe() }),
    allreduce_share: maybe().describe("a fraction 0…1; the parser reports it in %"),
    allreduce_ms: maybe(),
    allreduce_method: z.string(),
    loss_start: maybe(),
    loss_end: maybe(),
    accuracy: maybe().describe("a fraction 0…1 on the test split; null on synthetic data"),
    history: z.array(z.object({ step: z.number().int(), samples_per_s: maybe(), loss: maybe() }).loose()),
    ranks: z
      .array(
        z.object({
          rank: z.number().int().nonnegative(),
          host: z.string(),
          device: z.string().describe('"cpu" or "cuda"'),
          loss_start: maybe().describe("this rank's loss on its own batch at the first step"),
          loss_end: maybe().describe("this rank's mean loss on its own batches over its last loss_end_steps steps"),
          loss_end_steps: z.number().int().positive(),
        }),
      )
      .optional()
      .describe("each rank's own loss (absent from results of gpucheck before it was added)"),
  });
});
