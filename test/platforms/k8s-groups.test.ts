// An isolating pattern's round on k8s against the in-process fake API server: each unit of the
// round its own Indexed Job pinned to its nodes, all at once, one verdict each.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { k8s } from "../../plugins/k8s.ts";
import { groupUnit } from "../../lib/plan/pattern.ts";
import { FakeCluster } from "../k8s-fake/cluster.ts";
import { PYTHON, runOnFake } from "../k8s-fake/harness.ts";
import { scriptTest } from "./conformance.ts";

const NAMES = ["node-a", "node-b", "node-c", "node-d"];
const NODES = NAMES.map((name) => ({ name, resources: { "nvidia.com/gpu": 8 } }));
const ROUND = [groupUnit({ name: "1.node-a+node-c", nodes: ["node-a", "node-c"] }, 2), groupUnit({ name: "1.node-b+node-d", nodes: ["node-b", "node-d"] }, 2)];
// a rank on node-d fails: its unit fails, the other must not notice
const ECHO =
  "import os, sys; n = os.environ['GPUCHECK_NODE']; print('on', n, os.environ['WORLD_SIZE'], os.environ['MASTER_ADDR']); sys.exit(3 if n == os.environ.get('BAD') else 0)";

let cluster: FakeCluster;
beforeAll(async () => {
  cluster = await FakeCluster.start({ nodes: NODES });
});
afterAll(async () => {
  await cluster.stop();
});

function roundTest(bad = "none") {
  const t = scriptTest("pairs", PYTHON, ECHO, { nodes: 2, ranksPerNode: 2, env: { BAD: bad } });
  return { ...t, units: ROUND };
}

test("platform.k8s.nodes: hosts() names them, separate; without it the nodes are learnt at run time", () => {
  const ctx = { suite: {} as never, cli: {} };
  expect(k8s.hosts!({ ...ctx, settings: k8s.settings.parse({ nodes: NAMES }) })).toEqual({ names: NAMES, separate: true });
  expect(k8s.hosts!({ ...ctx, settings: k8s.settings.parse({}) })).toBeUndefined();
});

test("platform.k8s.nodes: a bad name or a repeated one is refused with the field named", () => {
  const bad = k8s.settings.safeParse({ nodes: ["Node_A", "node-b", "node-b"] });
  expect(bad.error!.issues.map((i) => `${i.path.join(".")}: ${i.message}`)).toEqual([
    "nodes.0: must be a Kubernetes node name (lowercase RFC 1123 subdomain: a-z, 0-9, '-', '.')",
    "nodes: must not name a node twice",
  ]);
  expect(k8s.settings.safeParse({ nodes: [] }).error!.issues.map((i) => `${i.path.join(".")}: ${i.message}`)).toEqual(["nodes: Too small: expected array to have >=1 items"]);
});

test("a round of two 2-node units: each on its own nodes, both completed and named", async () => {
  const r = await runOnFake(cluster, roundTest(), { settings: { nodes: NAMES } });
  expect(r.units.map((u) => [u.unit, u.status, u.hosts])).toEqual([
    ["1.node-a+node-c", "completed", ["node-a", "node-c"]],
    ["1.node-b+node-d", "completed", ["node-b", "node-d"]],
  ]);
  for (const u of r.units) expect(u.ranks.map((x) => x.rank)).toEqual([0, 1, 2, 3]);
  const on = (unit: string) => r.lines.filter((l) => l.startsWith(`${unit}/`)).map((l) => l.split(" ").slice(2, 5));
  // every rank of a unit on one of its nodes, in a world of the unit's size
  for (const u of ROUND) {
    const seen = on(u.name);
    expect(seen).toHaveLength(4);
    expect(new Set(seen.map((s) => s[0]))).toEqual(new Set(u.nodes));
    expect(new Set(seen.map((s) => s[1]))).toEqual(new Set(["4"]));
  }
}, 60_000);

test("render: per unit a Service and an Indexed Job pinned to its nodes, MASTER_ADDR its own rank-0 pod", () => {
  const t = roundTest();
  const settings = k8s.settings.parse({ image: "python:3-local", nodes: NAMES, namespace: "gpu" });
  const { manifests } = k8s.render({ suite: {} as never, settings, cli: {}, test: t, launch: t.launch, workloadHash: "0" }) as { manifests: any[] };
  expect(manifests.map((m) => m.kind)).toEqual(["ConfigMap", "Service", "Job", "Service", "Job"]);
  for (const [k, u] of ROUND.entries()) {
    const job = manifests[2 + 2 * k];
    const pod = job.spec.template.spec;
    expect(job.metadata.name).toBe(manifests[1 + 2 * k].metadata.name);
    expect(job.spec.completions).toBe(2);
    expect(pod.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms).toEqual([
      { matchFields: [{ key: "metadata.name", operator: "In", values: u.nodes }] },
    ]);
    const env = Object.fromEntries(pod.containers[0].env.map((e: any) => [e.name, e.value]));
    expect(env.MASTER_ADDR).toBe(`${job.metadata.name}-0.${job.metadata.name}.gpu.svc`);
    expect(env.WORLD_SIZE).toBe("4");
  }
});

test("one unit whose pods fail: that unit failed, the other completed", async () => {
  const r = await runOnFake(cluster, roundTest("node-d"), { settings: { nodes: NAMES } });
  expect(r.units.map((u) => [u.unit, u.status])).toEqual([
    ["1.node-a+node-c", "completed"],
    ["1.node-b+node-d", "failed"],
  ]);
}, 60_000);

test("a round's groups need mode indexed-job: a Kubeflow mode is refused at plan time", () => {
  const t = roundTest();
  const settings = k8s.settings.parse({ image: "python:3-local", nodes: NAMES, mode: "pytorchjob" });
  expect(() => k8s.render({ suite: {} as never, settings, cli: {}, test: t, launch: t.launch, workloadHash: "0" })).toThrow(
    'k8s: test "pairs" runs groups of nodes side by side (an isolating pattern), which mode "pytorchjob" cannot: use mode: indexed-job for it',
  );
});
