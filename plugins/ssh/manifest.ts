// The ssh platform's rendered manifest: what `gpucheck plan` prints and, slots bound, what runs.
import type { Manifest } from "../../lib/core/platform.ts";
import type { Launcher, Rendezvous } from "./layout.ts";

/** What the ssh platform runs: per host its preparation, per unit each remote process's exact ssh argv. */
export interface SshManifest extends Manifest {
  launcher: Launcher;
  stageDir: string;
  maxParallel: number;
  /** the suite's env, sent first on the stdin of every rank's and launcher's ssh (never on a command line) */
  envOnStdin: Record<string, string>;
  hosts: Array<{ host: string; prepare: string[]; stageIfMissing: string[] }>;
  /** onePass: a per-node unit's one process in its host's first ssh, where the stage is there (its `prepare` then unused) */
  units: Array<{ unit: string; hosts: string[]; master: Rendezvous; ranks: Array<{ rank: number; host: string; ranks: number[]; argv: string[] }>; onePass?: string[] }>;
  text: string;
}
