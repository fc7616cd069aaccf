// The k8s platform's whole lifecycle against the in-process fake API server (test/k8s-fake): real
// HTTP, real @kubernetes/client-node, real subprocesses for the pods' containers.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
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

const RANK_ECHO =
  "import os; print('hello from', os.environ['RANK'], os.environ['WORLD_SIZE'], os.environ['LOCAL_RANK'], os.environ['LOCAL_WORLD_SIZE'], os.environ['GPUCHECK_NODE'], os.environ['MASTER_ADDR'])";

test("two nodes × two ranks complete; rank logs, rank env and hosts come from the pods", async () => {
  const t = scriptTest("echo", PYTHON, RANK_ECHO, { nodes: 2, ranksPerNode: 2 });
  const r = await runOnFake(cluster, { ...t, gpusPerNode: 4 }, { settings: { namespace: "gpu", resources: { extra: { "rdma/ib": 1 } } } });
  expect(r.units).toHaveLength(1);
  const u = r.units[0]!;
  expect(u.status).toBe("completed");
  expect(u.hosts.sort()).toHaveLength(2);
  expect(u.ranks.map((x) => [x.rank, x.exitCode])).toEqual([
    [0, 0],
    [1, 0],
    [2, 0],
    [3, 0],
  ]);
  for (const rank of u.ranks) {
    const log = readFileSync(rank.path, "utf8");
    expect(log).toContain(`hello from ${rank.rank} 4 ${rank.rank % 2} 2 ${rank.host} 127.0.0.1`);
    expect(rank.path).toBe(join(r.outDir, "logs", "echo", "all", `rank-${rank.rank}.log`));
  }
  expect(u.output).toMatch(/^hello from 0 4 0 2 gpu-\d 127\.0\.0\.1\n$/);
  expect(r.lines.filter((l) => l.startsWith("all/3: hello from 3"))).toHaveLength(1);
  expect(cluster.objects("app.kubernetes.io/managed-by=gpucheck")).toEqual([]);
}, 60_000);

test("a rank that exits 1 fails the unit; the message names rank, node, pod, exit code and the workload's error", async () => {
  const code =
    "import os, sys\nif os.environ['RANK'] == '3':\n    sys.stderr.write('gpucheck-workload: error: NCCL watchdog timeout on rank 3\\n'); sys.exit(1)\nimport time; time.sleep(30)";
  const r = await runOnFake(cluster, scriptTest("fails", PYTHON, code, { nodes: 2, ranksPerNode: 2 }));
  const u = r.units[0]!;
  expect(u.status).toBe("failed");
  expect(u.message).toMatch(/^rank 3 on node gpu-\d \(pod gc-fails-[0-9a-f]{6}-1-[0-9a-f]{5}\) exited with 1: NCCL watchdog timeout on rank 3$/);
  expect(u.ranks.find((x) => x.rank === 3)!.exitCode).toBe(1);
  expect(readFileSync(u.ranks[3]!.path, "utf8")).toContain("gpucheck-workload: error: NCCL watchdog timeout on rank 3");
  // the Job failed at once (backoffLimit 0): the peers sleeping 30 s were not waited for
  expect(r.elapsedMs).toBeLessThan(20_000);
  expect(cluster.objects("app.kubernetes.io/managed-by=gpucheck")).toEqual([]);
  expect(cluster.livePids()).toEqual([]);
}, 60_000);

test("pods that cannot be scheduled: infra after the queue timeout, with the scheduler's reason", async () => {
  const t = { ...scriptTest("too-big", PYTHON, "print(1)", { nodes: 2, ranksPerNode: 1 }), gpusPerNode: 16 };
  const r = await runOnFake(cluster, t, { queueTimeoutMs: 1500 });
  const u = r.units[0]!;
  expect(u.status).toBe("infra");
  expect(u.message).toMatch(
    /^gave up after 2s waiting for pods to start: pod gc-too-big-[0-9a-f]{6}-0-[0-9a-f]{5} is unschedulable: Unschedulable: 0\/3 nodes are available: 3 Insufficient nvidia\.com\/gpu\./,
  );
  expect(r.notes.some((n) => /is unschedulable: Unschedulable: 0\/3 nodes are available: 3 Insufficient nvidia.com\/gpu/.test(n))).toBe(true);
  expect(cluster.objects("app.kubernetes.io/managed-by=gpucheck")).toEqual([]);
}, 30_000);

test("more nodes than the cluster has: anti-affinity keeps one pod per node and names the extra pod", async () => {
  const r = await runOnFake(cluster, scriptTest("four-nodes", PYTHON, "import time; time.sleep(30)", { nodes: 4, ranksPerNode: 1 }), { queueTimeoutMs: 2000 });
  expect(r.units[0]!.status).toBe("infra");
  expect(r.units[0]!.message).toContain("3 node(s) didn't match pod anti-affinity rules");
}, 30_000);

test("a missing toleration for the GPU taint shows as the untolerated taint", async () => {
  const r = await runOnFake(cluster, scriptTest("no-tol", PYTHON, "print(1)", { nodes: 1, ranksPerNode: 1 }), { queueTimeoutMs: 1000, settings: { tolerations: [] } });
  expect(r.units[0]!.message).toContain("3 node(s) had untolerated taint {nvidia.com/gpu: }");
}, 30_000);

test("ImagePullBackOff ends the wait at once with the kubelet's message", async () => {
  const bad = await FakeCluster.start({ nodes: NODES.slice(0, 1), badImages: { "registry.invalid/nope:1": "ImagePullBackOff" } });
  try {
    const r = await runOnFake(bad, scriptTest("pull", PYTHON, "print(1)", { nodes: 1, ranksPerNode: 1 }), {
      settings: { image: "registry.invalid/nope:1" },
      queueTimeoutMs: 60_000,
    });
    const u = r.units[0]!;
    expect(u.status).toBe("infra");
    expect(u.message).toMatch(/^pod gc-pull-[0-9a-f]{6}-0-[0-9a-f]{5} on node gpu-1 cannot start: ImagePullBackOff: Back-off pulling image "registry\.invalid\/nope:1"$/);
    expect(r.elapsedMs).toBeLessThan(10_000);
    expect(r.notes.some((n) => n.includes("ErrImagePull"))).toBe(true);
    expect(bad.objects("app.kubernetes.io/managed-by=gpucheck")).toEqual([]);
  } finally {
    await bad.stop();
  }
}, 30_000);

test("Ctrl-C: cancelled, processes killed, every object with the run label deleted", async () => {
  const t = scriptTest("sleepy", PYTHON, "import time; print('up', flush=True); time.sleep(120)", { nodes: 2, ranksPerNode: 2, timeoutMs: 60_000 });
  let cancelAt = 0;
  const r = await runOnFake(cluster, t, {
    during: () => {
      if (!cancelAt && cluster.livePids().length >= 2) cancelAt = Date.now();
    },
    cancelAfterMs: 3000,
  });
  const u = r.units[0]!;
  expect(u.status).toBe("cancelled");
  expect(u.message).toBe("cancelled");
  expect(r.lines.filter((l) => l.endsWith(": up"))).toHaveLength(4);
  const run = /gpucheck\.dev\/run=([0-9a-f]{6})/.exec(r.notes.join("\n"))![1]!;
  expect(cluster.objects(`gpucheck.dev/run=${run}`)).toEqual([]);
  expect(cluster.livePids()).toEqual([]);
  const deletes = cluster.requests.filter((q) => q.method === "DELETE" && q.path.includes("/jobs/"));
  expect(deletes.at(-1)!.query.propagationPolicy).toBe("Background");
}, 30_000);

test("--keep leaves the objects and says how to delete them", async () => {
  const r = await runOnFake(cluster, scriptTest("kept", PYTHON, "print(1)", { nodes: 1, ranksPerNode: 1 }), { cli: { keep: true } });
  expect(r.units[0]!.status).toBe("completed");
  const note = r.notes.find((n) => n.includes("--keep"))!;
  const run = /run ([0-9a-f]{6})/.exec(note)![1]!;
  expect(note).toContain(`kubectl --context fake -n gpu delete configmaps,services,jobs.batch,pods -l gpucheck.dev/run=${run}`);
  expect(cluster.objects(`gpucheck.dev/run=${run}`).sort()).toEqual(
    expect.arrayContaining([expect.stringMatching(/^jobs\//), expect.stringMatching(/^configmaps\//), expect.stringMatching(/^services\//), expect.stringMatching(/^pods\//)]),
  );
}, 30_000);
// the real workload (torch's gloo) between two pods: test/integration/platforms/k8s-workload.test.ts
