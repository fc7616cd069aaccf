// What the local platform reads from a suite (platform.local:) and what it launches, shared by
// its render (local.ts) and its run (local/run.ts).
import * as z from "../../lib/core/schema.ts";
import type { Manifest } from "../../lib/core/platform.ts";

export const settings = z.lazy(() =>
  z
    .object({
      /** where the workload is staged; default <results dir>/workload */
      stageDir: z.string().min(1).optional(),
      /** rendezvous port for rank 0; default: a free port */
      masterPort: z.number().int().min(1).max(65535).optional(),
      /** ms a rank may outlive a failed peer before it is killed (a gloo/NCCL peer never returns alone) */
      peerFailureGraceMs: z.number().int().min(0).default(5000),
    })
    .strict(),
);

export type LocalSettings = z.infer<typeof settings>;

export interface RankLaunch {
  rank: number;
  argv: string[];
  env: Record<string, string>;
}

/** What the local platform launches: per unit, one process per rank. */
export interface LocalManifest extends Manifest {
  host: string;
  stageDir: string;
  units: Array<{ unit: string; ranks: RankLaunch[] }>;
}
