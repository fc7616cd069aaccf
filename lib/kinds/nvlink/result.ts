// The nvlink command's GPUCHECK_RESULT line (workload/gpucheck_workload/kinds/nvlink.py) as
// lib/kinds/nvlink/parse.ts reads it: the contract between the workload and the binary.
import { z } from "zod";
import { deviceSchema } from "../device-schema.ts";

// built on first use: a command that never checks a workload result does not pay for its zod objects
export const nvlinkResult = z.lazy(() => {
  const rank = z.number().int().nonnegative();
  const timed = {
    src: rank.describe("the sending rank"),
    dst: rank.describe("the receiving rank, which timed the messages"),
    gbps: z.number().positive().describe("bytes × timed messages / their total time, GB/s (1 GB = 1e9 bytes)"),
    best_gbps: z.number().positive().describe("the fastest timed message, GB/s"),
    median_gbps: z.number().positive().describe("the median timed message, GB/s"),
    bytes: z.number().int().positive().describe("bytes per message"),
    calls: z.array(z.number().positive()).min(1).describe("every timed message's GB/s, in order"),
  };
  const copy = z.union([
    z.object({ src: rank, dst: rank, why: z.string().describe("the pair was not copied: the GPUs cannot reach each other as peers") }),
    z.object({ ...timed, src: rank.describe("the rank whose GPU was copied from"), dst: rank.describe("the rank whose GPU was copied to") }),
  ]);
  return z.object({
    world_size: z.number().int().min(2),
    backend: z.enum(["nccl", "gloo"]).describe("nccl: GPU to GPU (NVLink/NVSwitch where NCCL uses P2P); gloo: CPU processes over TCP loopback"),
    torch: z.string(),
    size: z.number().int().positive().describe("bytes per message"),
    iters: z.number().int().positive(),
    warmup: z.number().int().nonnegative(),
    ranks: z.array(z.object({ rank, local_rank: rank, host: z.string(), device: deviceSchema() })).min(2),
    pairs: z.array(z.object(timed)).describe("each ordered pair of ranks on one host, timed alone, by src then dst"),
    all: z
      .array(z.object({ shift: z.number().int().positive().describe("every rank sent to rank + shift on its host at once"), ...timed }))
      .describe("every pair at once, by shift"),
    ce: z
      .array(
        z.object({
          host: z.string(),
          leader: rank.describe("the host's local rank 0, which made every copy"),
          why: z.string().optional().describe("why the host's copy-engine phase did not run (no GPU, a GPU not visible to the leader, a failure)"),
          nvbandwidth: z
            .object({
              why: z.string().optional().describe("why there is no nvbandwidth output: not on PATH, a timeout"),
              command: z.string().optional(),
              rc: z.number().int().optional(),
              output: z.string().optional().describe("nvbandwidth's text output, read by lib/kinds/nvlink/nvbandwidth.ts"),
            })
            .optional()
            .describe("NVIDIA nvbandwidth's four device-to-device copy-engine testcases on this host, run before the workload's own copies"),
          pairs: z.array(copy).optional().describe("each ordered pair of the host's GPUs copied alone"),
          all: z.array(copy).optional().describe("every pair copying at once, each on its own stream"),
        }),
      )
      .optional()
      .describe("the copy-engine phase of each host (workload/gpucheck_workload/nvlink_ce.py): dst.copy_(src) between GPUs, timed with CUDA events on the source GPU's stream"),
  });
});
