// The isolating patterns' conformance table (pattern-conformance.ts) on the slurm platform, each
// round one job of the fake Slurm (test/fakes/fake-slurm.ts) with a step per group, the nodes'
// faults in their software (test/fakes/fake-workload.ts).
import "../../cli/platforms.ts";
import { FakeSlurm } from "../fakes/fake-slurm.ts";
import { tempDir } from "../tmp.ts";
import { onFakeSlurm } from "./fake-slurm-platform.ts";
import { patternConformance } from "./pattern-conformance.ts";

// one scheduler for every scenario: its job ids are unique, and with no queue the jobs of scenarios side by side all start at once
const fake = new FakeSlurm();

patternConformance("slurm", () => ({
  nodes: ["node1", "node2", "node3", "node4"],
  setup: () => ({
    platformYaml: `{ type: slurm, slurm: { nodelist: "node[1-4]", stageDir: ${JSON.stringify(tempDir("gpucheck-pattern-slurm-stage-"))}, pollMaxS: 0.5 } }`,
    platform: onFakeSlurm(fake),
  }),
}));
