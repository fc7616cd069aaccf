// The fault lab's CPU faults on the local Slurm of the integration tier (test/infra/slurm.sh): each is
// measured in a job step on the node it was set on, and on another. Apart from fault-lab.test.ts
// because the tier runs in two shards (scripts/test-integration.sh): these faults must never meet the
// local Slurm's own tests, which run in the daemons shard, one after another with this file.
import { describe, expect, test } from "bun:test";
import { availableParallelism } from "node:os";
import { expectCap, expectFreeze } from "./fault-expect.ts";
import { SLURM_INFRA, slurmFaults } from "./fault-lab.ts";
import { busyOnNode } from "./probes.ts";

const ts = SLURM_INFRA ? test : test.skip;

const refusal = (p: Promise<unknown>) =>
  p.then(
    () => "applied",
    (err: Error) => err.message,
  );

describe("slurm: per-node faults act on that node's job steps", () => {
  ts("cpu-cap: a step on the capped node gets its 10 % of a CPU, one on another node far more", () => expectCap(slurmFaults, busyOnNode, "node2", "node1"), 30_000);
  ts(
    "freeze: a step on the frozen node makes no progress while one on another node does; thawed, it goes on",
    () => expectFreeze(slurmFaults, busyOnNode, "node2", "node1"),
    30_000,
  );
});

describe("bad input: the exact message, and nothing applied", () => {
  ts("slurm.sh", async () => {
    const n = (await slurmFaults.status()).length;
    expect(await refusal(slurmFaults.cpuCap("node9", 10))).toBe(`slurm.sh: no node node9: the cluster has ${n} nodes (node1-node${n})`);
    expect(await refusal(slurmFaults.cpuCap("node1", 100_000))).toBe(`slurm.sh: cpu-cap: "100000" is not a percentage of one CPU from 1 to ${availableParallelism() * 100}`);
    expect(await refusal(slurmFaults.freeze("node0"))).toBe(`slurm.sh: no node node0: the cluster has ${n} nodes (node1-node${n})`);
    expect((await slurmFaults.status()).filter((l) => !l.endsWith(": no fault"))).toEqual([]);
  });
});

// Runs last: whatever a test set, its own undo took away (read from the kernel: cgroup quota and freezer state).
describe("every fault was undone", () => {
  ts("slurm: no node has a fault", async () => {
    expect((await slurmFaults.status()).filter((l) => !l.endsWith(": no fault"))).toEqual([]);
  });
});
