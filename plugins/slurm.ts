// The slurm platform: each test is one batch job (sbatch), one srun task per rank; per-node mode
// is one job too, with one step per node, and so is each round of an isolating pattern, with one
// step per group of nodes. See plugins/slurm/ for the pieces:
// settings.ts (the suite's platform.slurm block), sbatch.ts (the script, pure), run.ts (submit,
// follow, cancel), follow.ts (polling), outcome.ts (verdict per unit), stage.ts (workload).
import type { Manifest, Platform } from "../lib/core/platform.ts";
import { renderSbatch, SWEEP_SLOTS } from "./slurm/sbatch.ts";
import type { Slots } from "../lib/core/slots.ts";
import { expandHostlist } from "../lib/core/hostlist.ts";
import { settings, type SlurmSettings } from "./slurm/settings.ts";

/** The batch script sbatch is given; in per-node mode the run adds the usable nodes sinfo lists at submission. */
export interface SlurmManifest extends Manifest {
  script: string;
  text: string;
}

function sweepSlots(s: SlurmSettings, cli: { hosts?: string[] }): Slots {
  const nodelist = cli.hosts?.length ? cli.hosts.join(",") : s.nodelist;
  const among = [
    s.partition ? `partition ${s.partition}` : "the default partition",
    ...(nodelist ? [`matching ${nodelist}`] : []),
    ...(s.exclude ? [`except ${s.exclude}`] : []),
  ].join(" ");
  return {
    [SWEEP_SLOTS.count]: `how many nodes of ${among} sinfo lists as usable (not drained or down) at submission`,
    [SWEEP_SLOTS.list]: `those nodes, as a Slurm hostlist`,
  };
}

export const slurm: Platform<SlurmSettings, SlurmManifest> = {
  name: "slurm",
  summary: "each test one sbatch job, one srun task per rank; per-node sweeps and a pattern's rounds in one job each",
  flags: ["hosts", "image"],
  // a round's groups run as steps of one allocation, each on its own nodes: the isolating patterns run here
  anyUnits: true,
  settings,
  // without a node list the scheduler picks the nodes when the job starts
  hosts: (ctx) => {
    const list = ctx.cli.hosts?.length ? ctx.cli.hosts.join(",") : ctx.settings.nodelist;
    if (list === undefined) return undefined;
    try {
      return { names: expandHostlist(list), separate: true };
    } catch {
      return undefined; // a list slurm cannot read is sbatch's to refuse, with its own message
    }
  },
  // plan shows the exact script; in per-node mode sinfo decides --nodes/--nodelist at submission
  render: (ctx) => {
    const script = renderSbatch(ctx);
    return { script, slots: ctx.test.perNode ? sweepSlots(ctx.settings, ctx.cli) : {}, text: script };
  },
  run: async (ctx) => {
    const { runSlurm } = await import("./slurm/run.ts");
    return runSlurm(ctx);
  },
};
