// The k8s platform's whole lifecycle against the in-process fake API server (test/k8s-fake): real
// HTTP, real @kubernetes/client-node, real subprocesses for the pods' containers.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { FakeCluster } from "../k8s-fake/cluster.ts";
import { PYTHON, runOnFake } from "../k8s-fake/harness.ts";
import { scriptTest } from "./conformance.ts";

const NODES = ["gpu-1", "gpu-2", "gpu-3"].map((name) => ({
  name,
  labels: { "nvidia.com/gpu.present": "true" },
  resources: { "nvidia.com/gpu": 8, "rdma/ib": 1 },
  taints: [{ key: "nvidia.com/gpu", effect: "NoSchedule" }],
}));

let cluster: FakeCluster;
beforeAll(async () => {
  cluster = await FakeCluster.start({ nodes: NODES });
});
afterAll(async () => {
  await cluster.stop();
});

const RANK_ECHO = "import os; print('hello from', os.environ['RANK'], os.environ['WORLD_SIZE'], os.environ['LOCAL_RANK'], os.environ['LOCAL_WORLD_SIZE'], os.environ['GPUCHECK_NODE'], os.environ['MASTER_ADDR'])";

test("two nodes × two ranks complete; rank logs, rank env and hosts come from the pods", async () => {
  const t = scriptTest("echo", PYTHON, RANK_ECHO, { nodes: 2, ranksPerNode: 2 });
  const r = await runOnFake(cluster, { ...t, gpusPerNode: 4 }, { settings: { namespace: "gpu", resources: { extra: { "rdma/ib": 1 } } } });
  expect(r.units).toHaveLength(1);
  const u = r.units[0]!;
  expect(u.status).toBe("completed");
  expect(u.hosts.sort()).toHaveLength(2);
  expect(u.ranks.map((x) => [x.rank, x.exitCode])).toEqual([[0, 0], [1, 0], [2, 0], [3, 0]]);
  for (const rank of u.ranks) {
    const log = readFileSync(rank.path, "utf8");
    expect(log).toContain(`hello from ${rank.rank} 4 ${rank.rank % 2} 2 ${rank.host} 127.0.0.1`);
    expect(rank.path).toBe(join(r.outDir, "logs", "echo", "all", `rank-${rank.rank}.log`));
  }
  expect(u.output).toMatch(/^hello from 0 4 0 2 gpu-\d 127\.0\.0\.1\n$/);
  expect(r.lines.filter((l) => l.startsWith("all/3: hello from 3"))).toHaveLength(1);
  expect(cluster.objects("app.kubernetes.io/managed-by=gpucheck")).toEqual([]);
}, 60_000);
