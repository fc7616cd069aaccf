// The local platform: a test's ranks as subprocesses of this host (launched by local/run.ts).
import { hostname } from "node:os";
import { slot, slotsIn } from "../lib/core/slots.ts";
import { unitsOfTest } from "../lib/core/planned-units.ts";
import { rankEnv, type Platform, type RenderContext } from "../lib/core/platform.ts";
import { type LocalManifest, type LocalSettings as Settings, settings } from "./local/manifest.ts";

export type { LocalManifest };

const SLOTS = {
  resultsDir: "the run's results directory",
  masterPort: "a free port on this host, chosen when the test starts",
};

/** Pure: the test's processes, with the stage directory and the port as slots unless the suite fixes them. */
function render(ctx: RenderContext<Settings>): LocalManifest {
  const { test, launch } = ctx;
  const host = hostname();
  const stageDir = ctx.settings.stageDir ?? `${slot("resultsDir")}/workload`;
  const port = ctx.settings.masterPort ?? slot("masterPort");
  // every node of a local test is this host: one unit runs all of them side by side
  const units = unitsOfTest(test, { names: [host], separate: false }).map((u) => ({
    unit: u.name,
    ranks: u.ranks.map((r) => ({
      rank: r.rank,
      argv: [launch.python, ...launch.args],
      env: {
        // each rank binds to its own share of this host's CPUs (workload affinity.py); a suite's env may say "none"
        GPUCHECK_CPU_BIND: "split",
        ...launch.env,
        ...rankEnv({ rank: r.rank, worldSize: u.ranks.length, localRank: r.localRank, localWorldSize: test.ranksPerNode, masterAddr: "127.0.0.1", masterPort: 0, node: host }),
        MASTER_PORT: String(port),
        PYTHONPATH: stageDir,
      },
    })),
  }));
  const used = slotsIn({ stageDir, units });
  const slots = Object.fromEntries(Object.entries(SLOTS).filter(([k]) => used.includes(k)));
  return { host, stageDir, units, slots };
}

export const local: Platform<Settings, LocalManifest> = {
  name: "local",
  summary: "ranks as subprocesses on this host",
  flags: [],
  settings,
  hosts: () => ({ names: [hostname()], separate: false }),
  render,
  // launching loads child processes, sockets and the log plumbing: not for plan or validate
  run: async (ctx) => (await import("./local/run.ts")).runLocal(ctx, render),
};
