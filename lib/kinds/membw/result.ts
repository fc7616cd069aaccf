// The membw command's GPUCHECK_RESULT line (workload/gpucheck_workload/kinds/membw.py) as
// lib/kinds/membw/parse.ts reads it: the contract between the workload and the binary.
import { z } from "zod";
import { copyOp, copyResult } from "../copy-result.ts";
import { deviceSchema } from "../device-schema.ts";

import { MEMBW_OPS } from "./params.ts";

export { MEMBW_OPS };

// built on first use: a command that never checks a workload result does not pay for its zod objects
export const membwResult = z.lazy(() =>
  copyResult(
    z.object({
      rank: z.number().int().nonnegative(),
      local_rank: z.number().int().nonnegative(),
      host: z.string(),
      device: deviceSchema(),
      ops: z.object({ copy: copyOp("2 × size (read and write)"), triad: copyOp("3 × size (two reads, one write)") }),
    }),
  ),
);
