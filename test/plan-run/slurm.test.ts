// Plan equals run, slurm platform, daemon-free: the batch script sbatch is handed is the one plan
// renders, with the per-node sweep's nodes (what sinfo listed as usable) bound into its slots.
// The scheduler door replays a captured sinfo (test/fixtures/slurm/sinfo-drained.txt) and keeps
// the script sbatch was given, then refuses it so that nothing waits on a job.
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { bindSlots, slotsIn } from "../../lib/core/slots.ts";
import { slurm } from "../../plugins/slurm.ts";
import type { SlurmIo } from "../../plugins/slurm/cli.ts";
import { runSlurm } from "../../plugins/slurm/run.ts";
import { renderSbatch, sweepValues } from "../../plugins/slurm/sbatch.ts";
import { groupUnit } from "../../lib/plan/pattern.ts";
import { scriptTest } from "../platforms/conformance.ts";
import { slurmContext } from "../platforms/slurm-context.ts";
import { tempDir } from "../tmp.ts";

// the stage directory a shared file system would hold: a scratch one, so that the unit tier needs no
// /shared (the Slurm lab makes one) and never writes into a lab's
const stageDir = () => tempDir("gpucheck-plan-run-slurm-");

const SINFO = readFileSync(join(import.meta.dir, "../fixtures/slurm/sinfo-drained.txt"), "utf8");

/** every node idle: a round whose nodes are all usable is submitted as planned */
const SINFO_IDLE = SINFO.replace("drained|fan 3 | bad gpu", "idle|none");

function door(submitted: string[], sinfo = SINFO): SlurmIo {
  return {
    async exec(argv, opts) {
      if (argv[0] === "sinfo") return { code: 0, stdout: sinfo, stderr: "" };
      if (argv[0] === "sbatch") {
        submitted.push(readFileSync(join(opts!.cwd!, argv.at(-1)!), "utf8"));
        return { code: 1, stdout: "", stderr: "sbatch: error: refused by the test" };
      }
      return { code: 1, stdout: "", stderr: `unexpected ${argv[0]}` };
    },
  };
}

describe("plan equals run: slurm", () => {
  test("one job: the submitted script is the rendered one, which has no slots", async () => {
    const ctx = slurmContext(scriptTest("pr", "python3", "pass", { nodes: 2 }), { settings: { stageDir: stageDir() } });
    const rendered = slurm.render(ctx);
    expect(rendered.slots).toEqual({});
    const submitted: string[] = [];
    const units = await runSlurm(ctx, door(submitted));
    expect(units.map((u) => u.status)).toEqual(["infra"]);
    expect(submitted).toEqual([rendered.script]);
  });

  test("per-node: --nodes and --nodelist are slots in the plan, bound to the nodes sinfo lists as usable", async () => {
    const t = { ...scriptTest("pn", "python3", "pass"), perNode: true, worldSize: 2 };
    const ctx = slurmContext(t, { settings: { stageDir: stageDir() } });
    const rendered = slurm.render(ctx);
    expect(Object.keys(rendered.slots)).toEqual(["sweepNodeCount", "sweepNodelist"]);
    expect(slotsIn(rendered.script)).toEqual(["sweepNodeCount", "sweepNodelist"]);
    const submitted: string[] = [];
    await runSlurm(ctx, door(submitted));
    expect(submitted).toHaveLength(1);
    // sinfo-drained.txt: node4 is drained, so the sweep is node1-node3
    const usable = ["node1", "node2", "node3"];
    expect(sweepValues(usable)).toEqual({ sweepNodeCount: "3", sweepNodelist: `"node[1-3]"` });
    expect(submitted[0]).toBe(bindSlots(rendered.script, sweepValues(usable)));
    expect(submitted[0]).toBe(renderSbatch(ctx, usable));
  });

  test("an isolating round: two 2-node groups in one job, the submitted script the rendered one, which has no slots", async () => {
    const units = [groupUnit({ name: "1.node1+node3", nodes: ["node1", "node3"] }, 2), groupUnit({ name: "1.node2+node4", nodes: ["node2", "node4"] }, 2)];
    const ctx = slurmContext({ ...scriptTest("round", "python3", "pass", { nodes: 4 }), worldSize: 4, units }, { settings: { stageDir: stageDir() } });
    const rendered = slurm.render(ctx);
    expect(rendered.slots).toEqual({});
    expect(slotsIn(rendered.script)).toEqual([]);
    const submitted: string[] = [];
    // (with a node drained, its groups are left out of the job: test/integration/no-daemon/slurm-groups.test.ts)
    const runs = await runSlurm(ctx, door(submitted, SINFO_IDLE));
    expect(runs.map((u) => [u.unit, u.status])).toEqual([
      ["1.node1+node3", "infra"],
      ["1.node2+node4", "infra"],
    ]);
    expect(submitted).toEqual([rendered.script]);
    expect(rendered.script).toContain(
      '#SBATCH --nodes=4\n#SBATCH --ntasks-per-node=2\n#SBATCH --time=0:01:00\n#SBATCH --exclusive\n#SBATCH --no-requeue\n#SBATCH --no-kill\n#SBATCH --nodelist="node[1-4]"\n',
    );
  });
});
