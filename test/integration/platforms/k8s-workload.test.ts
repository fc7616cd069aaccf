// The k8s platform against the in-process fake API server (test/k8s-fake) running the real workload:
// a gloo all-reduce between two pods. Here rather than in test/integration/no-daemon/k8s-lifecycle.test.ts
// because it needs torch (Debian's python3-torch); no daemon.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { FakeCluster } from "../../k8s-fake/cluster.ts";
import { PYTHON, runOnFake } from "../../k8s-fake/harness.ts";
import { scriptTest } from "../../platforms/conformance.ts";

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

test("the real workload: a gloo all-reduce between two pods that meet at rank 0's DNS name", async () => {
  const t = scriptTest("allreduce", PYTHON, "", { nodes: 2, ranksPerNode: 1, timeoutMs: 60_000 });
  const args = [
    "-m",
    "gpucheck_workload",
    "collective",
    "--op",
    "all_reduce",
    "--min-bytes",
    "1024",
    "--max-bytes",
    "65536",
    "--factor",
    "4",
    "--iters",
    "3",
    "--warmup",
    "1",
    "--dtype",
    "float",
    "--backend",
    "gloo",
    "--impl",
    "workload",
  ];
  const launch = { ...t.launch, args, env: { GPUCHECK_DIST_TIMEOUT_S: "30" } };
  const r = await runOnFake(cluster, { ...t, launch });
  const u = r.units[0]!;
  expect(u.status).toBe("completed");
  // rank 0 prints the nccl-tests layout the executor parses; the last size is 64 KiB
  expect(u.output).toMatch(/^\s+65536\s+16384\s+float\s+sum\s/m);
  expect(u.output).toContain("# Avg bus bandwidth");
}, 60_000);
