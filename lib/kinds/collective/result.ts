// The collective's result as lib/parsers/nccl.ts reads it from rank 0's nccl-tests table (the
// workload prints the same layout as the official binaries, workload/gpucheck_workload/nccl_layout.py):
// the contract the workload's table must parse into.
import { z } from "zod";

// built on first use: a command that never checks a workload result does not pay for its zod objects
export const ncclResult = z.lazy(() => {
  const num = () => z.number().nullable();

  const placement = z.object({
    timeUs: num().describe("µs per operation; null when nccl-tests printed nan/inf"),
    algbwGBs: num(),
    busbwGBs: num(),
    wrong: z.number().int().nonnegative().nullable().describe("#wrong; null when the check was off (N/A)"),
  });

  return z.object({
    collective: z.string().nullable(),
    ranks: z.number().int().positive().nullable(),
    rows: z
      .array(
        z.object({
          size: z.number().int().nonnegative(),
          count: z.number().int().nonnegative(),
          type: z.string(),
          redop: z.string().nullable(),
          root: z.number().int().nullable(),
          outOfPlace: placement.nullable(),
          inPlace: placement.nullable(),
        }),
      )
      .min(1),
    maxBusbwGBs: num(),
    avgBusbwGBs: num(),
    outOfBounds: z.number().int().nonnegative().nullable(),
    complete: z.boolean(),
    failure: z.string().nullable(),
  });
});
