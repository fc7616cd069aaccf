// Per-node tests in turns of maxParallel (plugins/k8s/turns.ts) against the in-process fake: how many
// of the run's Jobs and pods exist is read from the fake's store as it changes, not from the code
// under test.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { FakeCluster } from "../../k8s-fake/cluster.ts";
import { PYTHON, runOnFake } from "../../k8s-fake/harness.ts";
import type { StoreEvent } from "../../k8s-fake/store.ts";
import { scriptTest } from "../../platforms/conformance.ts";

const NODES = ["n-1", "n-2", "n-3", "n-4", "n-5"];
let cluster: FakeCluster;
beforeAll(async () => {
  cluster = await FakeCluster.start({ nodes: NODES.map((name) => ({ name, resources: { "nvidia.com/gpu": 8 } })) });
});
afterAll(async () => {
  await cluster.stop();
});

const perNode = (name: string, code: string, timeoutMs = 60_000) => ({
  ...scriptTest(name, PYTHON, code, { nodes: 1, ranksPerNode: 1, timeoutMs }),
  perNode: true,
  worldSize: 1,
});

const MANAGED = "app.kubernetes.io/managed-by=gpucheck";

/** the most of gpucheck's Jobs and pods the fake held at once, and each pod's phase when it was deleted */
function observe(): { most: { jobs: number; pods: number }; created: string[]; deletedIn: Map<string, string | undefined>; stop(): void } {
  const live = { jobs: new Set<string>(), pods: new Set<string>() };
  const most = { jobs: 0, pods: 0 };
  const created: string[] = [];
  const deletedIn = new Map<string, string | undefined>();
  const stop = cluster.store.subscribe((e: StoreEvent) => {
    if (e.object.metadata.labels?.["app.kubernetes.io/managed-by"] !== "gpucheck" || (e.resource !== "jobs" && e.resource !== "pods")) return;
    const set = live[e.resource];
    const name = e.object.metadata.name;
    if (e.type === "DELETED") {
      set.delete(name);
      if (e.resource === "pods") deletedIn.set(name, (e.object.status as { phase?: string } | undefined)?.phase);
    } else set.add(name);
    if (e.type === "ADDED" && e.resource === "pods") created.push(name);
    most[e.resource] = Math.max(most[e.resource], set.size);
  });
  return { most, created, deletedIn, stop };
}

test("maxParallel 2 over 5 nodes: never more than 2 Jobs and pods at once, each deleted once its unit ended, all 5 pass", async () => {
  const seen = observe();
  const r = await runOnFake(cluster, perNode("turns", "import time; time.sleep(0.5); print('ok')"), { settings: { maxParallel: 2 } });
  seen.stop();
  expect(r.units.map((u) => [u.unit, u.status])).toEqual(NODES.map((n) => [n, "completed"]));
  expect(r.units.map((u) => u.output)).toEqual(NODES.map(() => "ok\n"));
  expect(seen.most).toEqual({ jobs: 2, pods: 2 });
  expect(seen.created).toHaveLength(5);
  // deleted after it ended: the pod had succeeded when it went
  expect([...seen.deletedIn.keys()].sort()).toEqual([...seen.created].sort());
  expect([...seen.deletedIn.values()]).toEqual(NODES.map(() => "Succeeded"));
  expect(cluster.objects(MANAGED)).toEqual([]);
}, 120_000);

test("a node whose pod hangs costs its own timeout while the other nodes take their turns and pass", async () => {
  const code = "import os, time\nif os.environ['GPUCHECK_NODE'] == 'n-3': time.sleep(300)\nprint('ok')";
  const r = await runOnFake(cluster, perNode("hang", code, 15_000), { settings: { maxParallel: 2 }, budgetMs: 120_000 });
  const by = Object.fromEntries(r.units.map((u) => [u.unit, u]));
  expect(r.units.map((u) => [u.unit, u.status])).toEqual(NODES.map((n) => [n, n === "n-3" ? "timeout" : "completed"]));
  expect(by["n-3"]!.message).toBe("timed out after 15s");
  const took = (u: { startedAt: string; endedAt: string }) => Date.parse(u.endedAt) - Date.parse(u.startedAt);
  expect(took(by["n-3"]!)).toBeGreaterThanOrEqual(14_000);
  expect(took(by["n-3"]!)).toBeLessThan(30_000);
  // n-4 and n-5 came after n-3 had started, through the other slot, and were done before it timed out
  expect(Date.parse(by["n-5"]!.endedAt)).toBeLessThan(Date.parse(by["n-3"]!.endedAt));
  expect(cluster.objects(MANAGED)).toEqual([]);
  expect(cluster.livePids()).toEqual([]);
}, 120_000);

test("Ctrl-C mid-run: the nodes in their turn are cancelled, the ones never reached say so", async () => {
  const r = await runOnFake(cluster, perNode("ctrl-c", "import time; time.sleep(120)"), { settings: { maxParallel: 2 }, cancelAfterMs: 3000 });
  expect(r.units.map((u) => [u.unit, u.status])).toEqual(NODES.map((n) => [n, "cancelled"]));
  expect(r.units.slice(0, 2).map((u) => u.message)).toEqual([expect.stringMatching(/^cancelled/), expect.stringMatching(/^cancelled/)]);
  expect(r.units.slice(2).map((u) => [u.hosts, u.message])).toEqual([
    [["n-3"], "cancelled before node n-3 was reached (at most 2 nodes at a time)"],
    [["n-4"], "cancelled before node n-4 was reached (at most 2 nodes at a time)"],
    [["n-5"], "cancelled before node n-5 was reached (at most 2 nodes at a time)"],
  ]);
  expect(r.elapsedMs).toBeLessThan(30_000);
  expect(cluster.objects(MANAGED)).toEqual([]);
  expect(cluster.livePids()).toEqual([]);
}, 60_000);

test("--keep: the nodes still take turns, and every Job and pod is left in place", async () => {
  const r = await runOnFake(cluster, perNode("kept", "print('ok')"), { settings: { maxParallel: 1, nodes: ["n-1", "n-2", "n-3"] }, cli: { keep: true } });
  expect(r.units.map((u) => u.status)).toEqual(["completed", "completed", "completed"]);
  const left = cluster.objects(MANAGED);
  expect(left.filter((o) => o.startsWith("jobs/"))).toHaveLength(3);
  expect(left.filter((o) => o.startsWith("pods/"))).toHaveLength(3);
  expect(left.filter((o) => o.startsWith("configmaps/"))).toHaveLength(1);
}, 60_000);

test("a Job create refused in its turn stops the test with the API's words, as when every object was created up front", async () => {
  const denied = await FakeCluster.start({ nodes: NODES.map((name) => ({ name })), deny: ["create jobs"] });
  try {
    const err = (await runOnFake(denied, perNode("refused", "print('ok')"), { settings: { maxParallel: 2 } }).catch((e: Error) => e)) as Error;
    expect(err.message).toMatch(/^k8s: forbidden to create jobs\.batch "gc-refused-[0-9a-f]{6}-n-[12]-[0-9a-f]{5}" in namespace "gpu": jobs\.batch is forbidden: /);
    // the first refusals (both slots tried at once) halt the window: n-3 to n-5 were never tried
    expect(denied.requests.filter((q) => q.method === "POST" && q.path.endsWith("/jobs"))).toHaveLength(2);
    expect(denied.objects(MANAGED)).toEqual([]);
  } finally {
    await denied.stop();
  }
}, 60_000);

test("a Job create whose connection is reset is tried again: lost on the way (resent) or after it landed (409 is its own)", async () => {
  let posts = 0;
  const flaky = await FakeCluster.start({
    nodes: NODES.map((name) => ({ name })),
    // the first Job create is cut after it landed (its retry meets its own 409), the second before: a
    // drop every few creates all run long (`++posts % 4`) let one create meet a cut on all four of its
    // tries when the slots' retries interleaved under load (a CI run), which tests the luck of the draw
    dropConnection: (q) => (q.method === "POST" && q.path.endsWith("/jobs") ? ([undefined, "after", "before"] as const)[++posts] : undefined),
  });
  try {
    const r = await runOnFake(flaky, perNode("reset", "print('ok')"), { settings: { maxParallel: 2 } });
    expect(r.units.map((u) => [u.unit, u.status])).toEqual(NODES.map((n) => [n, "completed"]));
    // a Job per node, and the two creates tried again
    expect(flaky.requests.filter((q) => q.method === "POST" && q.path.endsWith("/jobs"))).toHaveLength(NODES.length + 2);
    expect(flaky.objects(MANAGED)).toEqual([]);
  } finally {
    await flaky.stop();
  }
}, 60_000);
