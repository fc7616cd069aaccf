// Per-node mode (one Job and one verdict per node) and the Kubeflow variants, against the fake.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { FakeCluster } from "../k8s-fake/cluster.ts";
import { PYTHON, runOnFake } from "../k8s-fake/harness.ts";
import { scriptTest } from "./conformance.ts";

const gpu = (name: string, extra: Record<string, unknown> = {}) => ({ name, labels: { "nvidia.com/gpu.present": "true" }, resources: { "nvidia.com/gpu": 8 }, ...extra });
let cluster: FakeCluster;
beforeAll(async () => {
  cluster = await FakeCluster.start({
    crds: true,
    nodes: [gpu("gpu-a"), gpu("gpu-b"), gpu("gpu-cordoned", { unschedulable: true }), gpu("gpu-notready", { ready: false }), { name: "cpu-only" }],
  });
});
afterAll(async () => {
  await cluster.stop();
});

const perNode = (code: string) => ({ ...scriptTest("node-check", PYTHON, code, { nodes: 1, ranksPerNode: 2 }), perNode: true, worldSize: 2, gpusPerNode: 8 });

test("per-node: one verdict per matching node; cordoned and NotReady nodes are skipped with the reason", async () => {
  const code =
    "import os, sys\nprint('on', os.environ['GPUCHECK_NODE'], os.environ['RANK'], os.environ['WORLD_SIZE'])\nsys.exit(3 if os.environ['GPUCHECK_NODE'] == 'gpu-b' and os.environ['RANK'] == '1' else 0)";
  const r = await runOnFake(cluster, perNode(code), { settings: { nodeSelector: { "nvidia.com/gpu.present": "true" } } });
  const by = Object.fromEntries(r.units.map((u) => [u.unit, u]));
  expect(Object.keys(by).sort()).toEqual(["gpu-a", "gpu-b", "gpu-cordoned", "gpu-notready"]);
  expect(by["gpu-a"]!.status).toBe("completed");
  expect(by["gpu-a"]!.output).toBe("on gpu-a 0 2\n");
  expect(by["gpu-a"]!.ranks.map((x) => [x.rank, x.host, x.exitCode])).toEqual([
    [0, "gpu-a", 0],
    [1, "gpu-a", 0],
  ]);
  expect(by["gpu-a"]!.ranks[0]!.path).toMatch(/\/logs\/node-check\/gpu-a\/rank-0\.log$/);
  expect(by["gpu-b"]!.status).toBe("failed");
  expect(by["gpu-b"]!.message).toMatch(/^rank 1 on node gpu-b \(pod gc-node-check-[0-9a-f]{6}-gpu-b-[0-9a-f]{5}-0-[0-9a-f]{5}\) exited with 3$/);
  expect(by["gpu-cordoned"]!).toMatchObject({ status: "skipped", message: "node is cordoned (spec.unschedulable)" });
  expect(by["gpu-notready"]!).toMatchObject({ status: "skipped", message: "node is not Ready: container runtime network not ready" });
  expect(cluster.objects("app.kubernetes.io/managed-by=gpucheck")).toEqual([]);
}, 60_000);

test("per-node: forbidden to list nodes points at the ClusterRole", async () => {
  const denied = await FakeCluster.start({ deny: ["list nodes"] });
  try {
    const err = (await runOnFake(denied, perNode("print(1)")).catch((e: Error) => e)) as Error;
    expect(err.message).toBe(
      'k8s: forbidden to list nodes: nodes is forbidden: User "system:serviceaccount:gpu:gpucheck" cannot list resource "nodes" in API group "" at the cluster scope: gpucheck\'s service account or user needs the Role in deploy/k8s/rbac.yaml (kubectl apply -n <namespace> -f deploy/k8s/rbac.yaml) (per-node mode also needs the ClusterRole gpucheck-nodes-read)',
    );
  } finally {
    await denied.stop();
  }
}, 30_000);

test("per-node: no node matches the selector", async () => {
  const err = (await runOnFake(cluster, perNode("print(1)"), { settings: { nodeSelector: { pool: "h200" } } }).catch((e: Error) => e)) as Error;
  expect(err.message).toBe('k8s: per-node test: no node matches nodeSelector "pool=h200"');
}, 30_000);

test("pytorchjob: the operator's RANK is the node rank, its WORLD_SIZE counts ranks, MASTER_ADDR is the master's service", async () => {
  const code =
    "import os; print('rank', os.environ['RANK'], 'of', os.environ['WORLD_SIZE'], 'local', os.environ['LOCAL_RANK'], 'master', os.environ['MASTER_ADDR'], os.environ['MASTER_PORT'] != '')";
  const t = { ...scriptTest("ptj", PYTHON, code, { nodes: 2, ranksPerNode: 2 }), gpusPerNode: 8 };
  const r = await runOnFake(cluster, t, { settings: { mode: "pytorchjob", nodeSelector: { "nvidia.com/gpu.present": "true" } } });
  const u = r.units[0]!;
  expect(u.status).toBe("completed");
  expect(u.ranks.map((x) => x.exitCode)).toEqual([0, 0, 0, 0]);
  expect(u.output).toBe("rank 0 of 4 local 0 master 127.0.0.1 True\n");
  expect(r.lines.filter((l) => /rank \d of 4 local \d master/.test(l)).sort()).toHaveLength(4);
  expect(r.lines).toContain("all/3: rank 3 of 4 local 1 master 127.0.0.1 True");
  expect(cluster.objects("app.kubernetes.io/managed-by=gpucheck")).toEqual([]);
  // the per-replica Service the operator made went with its PyTorchJob (ownerReferences)
  expect(cluster.store.list("services", "gpu")).toEqual([]);
}, 60_000);

test("a Kubeflow mode without its CRD is a clear error before anything is created", async () => {
  const plain = await FakeCluster.start({ crds: false });
  try {
    for (const mode of ["pytorchjob", "mpijob"] as const) {
      const err = (await runOnFake(plain, scriptTest("crd", PYTHON, "print(1)", { nodes: 2, ranksPerNode: 1 }), { settings: { mode } }).catch((e: Error) => e)) as Error;
      const what =
        mode === "pytorchjob"
          ? "the Kubeflow training operator (≥ 1.8), but http://127.0.0.1:\\d+ does not serve pytorchjobs.kubeflow.org/v1"
          : "the Kubeflow MPI operator \\(v2beta1\\), but http://127.0.0.1:\\d+ does not serve mpijobs.kubeflow.org/v2beta1";
      expect(err.message).toMatch(
        new RegExp(`^k8s: mode "${mode}" needs ${what.replace("(≥ 1.8)", "\\(≥ 1\\.8\\)")}: install it, or use mode: indexed-job \\(plain batch/v1, no operator\\)$`),
      );
    }
    expect(plain.requests.filter((q) => q.method === "POST")).toEqual([]);
  } finally {
    await plain.stop();
  }
}, 30_000);
