// The slurm platform with a fake Slurm (test/fakes/fake-slurm.ts) as its scheduler door, and the
// conformance target for it: what the daemon-free slurm tests share.
import type { Platform, RunContext } from "../../lib/core/platform.ts";
import { slurm } from "../../plugins/slurm.ts";
import { runSlurm } from "../../plugins/slurm/run.ts";
import type { SlurmSettings } from "../../plugins/slurm/settings.ts";
import type { FakeSlurm } from "../fakes/fake-slurm.ts";
import { tempDir } from "../tmp.ts";
import type { ConformanceTarget } from "./conformance.ts";
import { localLeftovers } from "./leftovers.ts";

export const PY = "/usr/bin/python3";

export function onFakeSlurm(fake: FakeSlurm): Platform<unknown> {
  return { ...(slurm as Platform<unknown>), run: (ctx) => runSlurm(ctx as RunContext<SlurmSettings>, fake) };
}

export function fakeSlurmTarget(fake: FakeSlurm): ConformanceTarget {
  return {
    python: PY,
    // a shared stage directory: sbcast (the default) stages into the nodes' /tmp/gpucheck-<job id>
    settings: slurm.settings.parse({ pollMaxS: 0.5, stageDir: tempDir("gpucheck-fakeslurm-stage-") }),
    nodes: 2,
    ranksPerNode: 2,
    leftovers: async (marker) => [...(await localLeftovers(marker)), ...fake.live()],
    slackS: 1,
    settleMs: 1500,
  };
}
