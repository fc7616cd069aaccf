// The platform conformance suite (success, failure, timeout, Ctrl-C, hostile values) through the
// slurm platform's run, against an in-process fake Slurm (test/fakes/fake-slurm.ts) whose batch
// scripts run at once on this machine with fake srun/scontrol: the rendered script, the rank
// logs, srun's task reports, squeue polling and scancel are the platform's real path. A queue,
// sbcast, sacct/scontrol fallbacks, containers and node states need the real Slurm
// (test/integration/platforms/slurm.test.ts).
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { FakeSlurm } from "../../fakes/fake-slurm.ts";
import { conformance, expectCompleted, runScript, scriptTest } from "../../platforms/conformance.ts";
import { fakeSlurmTarget, onFakeSlurm, PY } from "../../platforms/fake-slurm-platform.ts";

const fake = new FakeSlurm();
const platform = onFakeSlurm(fake);
const target = () => fakeSlurmTarget(fake);

conformance(platform, target);

describe("slurm (fake scheduler): per-node mode", () => {
  test("one job, one step for every node, each node with its own rendezvous and verdict", async () => {
    const tg = target();
    const code =
      "import os, sys\nprint('ME', os.environ['GPUCHECK_NODE'], os.environ['RANK'], os.environ['MASTER_ADDR'], flush=True)\nif os.environ['GPUCHECK_NODE'] == 'node3' and os.environ['RANK'] == '1': sys.exit(7)";
    const spec = { ...scriptTest("sweep", PY, code, { nodes: 4, ranksPerNode: 2 }), perNode: true, worldSize: 2 };
    const before = fake.calls.filter((c) => c[0] === "sbatch").length;
    const { units, lines } = await runScript(platform, { ...tg, nodes: 4 }, spec);
    expect(units.map((u) => [u.unit, u.status])).toEqual([
      ["node1", "completed"],
      ["node2", "completed"],
      ["node3", "failed"],
      ["node4", "completed"],
    ]);
    expectCompleted(units[0]!);
    expect(units[2]!.message).toMatch(/^rank 1 on node3 failed with exit code 7 \(job \d+\)$/);
    // srun's report in the batch output names the failing task by its id in the one step of the
    // whole sweep (node3's rank 1 is task 5); the unit's own rank comes from the task's mark
    expect(units[2]!.tail).toStartWith("srun: error: node3: task 5: Exited with exit code 7\n");
    expect(fake.calls.filter((c) => c[0] === "sbatch").length - before).toBe(1);
    // one srun for the sweep (and none per node) in the script submitted
    const script = readFileSync(join(units[0]!.ranks[0]!.path, "..", "..", "job.sbatch"), "utf8");
    expect(script.match(/^\s*srun /gm)?.length).toBe(1);
    expect(lines.filter((l) => l.includes("ME node2")).sort()).toEqual(["node2/0: ME node2 0 node2", "node2/1: ME node2 1 node2"]);
  }, 60_000);
});
