// An isolating round on the slurm platform, through the fake Slurm (test/fakes/fake-slurm.ts): one
// sbatch for the round, one srun step per group on its own nodes, side by side, each a unit of its
// own whose failure or hang leaves the others' verdicts alone. The script itself is a golden file
// (test/golden/slurm/round-of-pairs.sbatch); the real Slurm runs a round in
// test/integration/platforms/slurm.test.ts.
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { TestToRender } from "../../../lib/core/platform.ts";
import { groupUnit } from "../../../lib/plan/pattern.ts";
import { FakeSlurm } from "../../fakes/fake-slurm.ts";
import { tempDir } from "../../tmp.ts";
import { expectCompleted, runScript, scriptTest } from "../../platforms/conformance.ts";
import { fakeSlurmTarget, onFakeSlurm, PY } from "../../platforms/fake-slurm-platform.ts";
import { meetingCode } from "../../platforms/slurm-context.ts";

const fake = new FakeSlurm();
const platform = onFakeSlurm(fake);
const target = () => fakeSlurmTarget(fake);

/** A round of `groups` (each a list of nodes), 2 ranks per node, running `code` on every rank. */
function round(name: string, code: string, groups: string[][], opts: { timeoutMs?: number; args?: string[] } = {}): TestToRender {
  const units = groups.map((nodes) => groupUnit({ name: `1.${nodes.join("+")}`, nodes }, 2));
  return { ...scriptTest(name, PY, code, { nodes: 4, ranksPerNode: 2, ...opts }), worldSize: 4, units };
}

const sbatches = () => fake.calls.filter((c) => c[0] === "sbatch").length;

describe("slurm (fake scheduler): a round of groups in one job", () => {
  test("each group is a step on its own nodes, all at once, each named and with its own rendezvous", async () => {
    const code = meetingCode(tempDir("gpucheck-fakeslurm-met-"), 8, 30);
    const before = sbatches();
    // the second group named out of Slurm's order: its rank 0, and so its rendezvous, is node2
    const { units, lines } = await runScript(
      platform,
      target(),
      round("pairs", code, [
        ["node1", "node3"],
        ["node4", "node2"],
      ]),
    );
    expect(sbatches() - before).toBe(1);
    expect(units.map((u) => [u.unit, u.status, u.hosts])).toEqual([
      ["1.node1+node3", "completed", ["node1", "node3"]],
      ["1.node4+node2", "completed", ["node2", "node4"]],
    ]);
    for (const u of units) expectCompleted(u);
    const seen = units.map((u) => u.output.trim().split(" "));
    expect(seen.map(([, node, rank, world, addr, , met]) => [node, rank, world, addr, met])).toEqual([
      ["node1", "0", "4", "node1", "8"],
      ["node2", "0", "4", "node2", "8"],
    ]);
    expect(seen[0]![5]).not.toBe(seen[1]![5]);
    expect(units[1]!.ranks.map((r) => `${r.rank}@${r.host}`)).toEqual(["0@node2", "1@node2", "2@node4", "3@node4"]);
    expect(units[1]!.ranks.map((r) => r.path)).toEqual([0, 1, 2, 3].map((r) => expect.stringMatching(new RegExp(`/logs/pairs/1\\.node4\\+node2/rank-${r}\\.log$`))));
    expect(readFileSync(units[1]!.ranks[3]!.path, "utf8")).toStartWith("ME node4 3 4 node2 ");
    expect(lines.filter((l) => l.startsWith("1.node1+node3/")).length).toBe(4);
  }, 60_000);

  test("a group with a node Slurm set DOWN is not submitted (the job would pend for it): it is infra, that node lost; the others run", async () => {
    fake.states.set("node4", "down*|Not responding");
    try {
      const before = fake.calls.length;
      const { units } = await runScript(
        platform,
        target(),
        round("one-down", "print('ok', flush=True)", [
          ["node1", "node3"],
          ["node4", "node2"],
        ]),
      );
      expect(units.map((u) => [u.unit, u.status, u.lost])).toEqual([
        ["1.node1+node3", "completed", undefined],
        ["1.node4+node2", "infra", ["node4"]],
      ]);
      expect(units[1]!.message).toBe("node4 is down* (not responding): Not responding: not submitted (Slurm would hold the round's job for it)");
      expect(fake.calls.slice(before).filter((c) => c[0] === "sbatch")).toHaveLength(1);
      const script = readFileSync(join(units[0]!.ranks[0]!.path, "..", "..", "job.sbatch"), "utf8");
      expect(script).toContain("1 group(s) side by side on 2 node(s)");
      expect(script).toContain('#SBATCH --nodelist="node[1,3]"');
    } finally {
      fake.states.clear();
    }
  }, 60_000);

  test("a group whose rank fails is failed, naming it; the group beside it passes", async () => {
    const code =
      "import os, sys\nif os.environ['GPUCHECK_NODE'] == 'node3' and os.environ['LOCAL_RANK'] == '1':\n  sys.stderr.write('gpucheck-workload: error: all_reduce: connection reset by peer\\n'); sys.exit(3)\nprint('ok', flush=True)";
    const { units } = await runScript(
      platform,
      target(),
      round("one-bad", code, [
        ["node1", "node3"],
        ["node2", "node4"],
      ]),
    );
    expect(units.map((u) => [u.unit, u.status])).toEqual([
      ["1.node1+node3", "failed"],
      ["1.node2+node4", "completed"],
    ]);
    expect(units[0]!.message).toMatch(/^rank 3 on node3 failed with exit code 3: all_reduce: connection reset by peer \(job \d+\)$/);
    // srun's report of the failing task is the failing group's, not its neighbour's
    expect(units[0]!.tail).toStartWith("srun: error: node3: task 3: Exited with exit code 3\n");
    expect(units[1]!.tail).not.toContain("srun: error");
  }, 60_000);

  test("a group that hangs is cut at the test's timeout as timeout; the group that finished stays completed; nothing is left running", async () => {
    const marker = `gpucheck-round-hang-${process.pid}-${Date.now()}`;
    const code = `import os, time\nprint('started', flush=True)\nif os.environ['GPUCHECK_NODE'] in ('node2', 'node4'): time.sleep(3600)  # ${marker}`;
    const tg = target();
    const { units, elapsedMs } = await runScript(
      platform,
      tg,
      round(
        "hang",
        code,
        [
          ["node1", "node3"],
          ["node2", "node4"],
        ],
        { timeoutMs: 6000, args: [marker] },
      ),
    );
    expect(units.map((u) => [u.unit, u.status])).toEqual([
      ["1.node1+node3", "completed"],
      ["1.node2+node4", "timeout"],
    ]);
    expect(units[1]!.message).toMatch(/^timed out after 6s: gpucheck cancelled the job \(job \d+\)$/);
    expect(units[1]!.ranks.map((r) => r.exitCode)).toEqual([null, null, null, null]);
    expect(elapsedMs).toBeLessThan(20_000);
    expect(await tg.leftovers(marker)).toEqual([]);
  }, 60_000);

  test("per-node: a node that finished beside a hung one keeps its verdict when the job is cancelled", async () => {
    const marker = `gpucheck-sweep-hang-${process.pid}-${Date.now()}`;
    const code = `import os, time\nif os.environ['GPUCHECK_NODE'] == 'node1': time.sleep(3600)  # ${marker}`;
    const spec = { ...scriptTest("sweep-hang", PY, code, { nodes: 4, ranksPerNode: 1, timeoutMs: 6000, args: [marker] }), perNode: true, worldSize: 1 };
    const tg = target();
    const { units } = await runScript(platform, tg, spec);
    expect(units.map((u) => [u.unit, u.status])).toEqual([
      ["node1", "timeout"],
      ["node2", "completed"],
      ["node3", "completed"],
      ["node4", "completed"],
    ]);
    expect(await tg.leftovers(marker)).toEqual([]);
  }, 60_000);
});
