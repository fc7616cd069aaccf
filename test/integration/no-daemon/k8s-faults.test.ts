// What goes wrong on real clusters, against the fake API server: RBAC refusals, name conflicts,
// watches that expire (410 Gone), log streams that break, and nodes that disappear mid-run.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { FakeCluster } from "../../k8s-fake/cluster.ts";
import { PYTHON, runOnFake } from "../../k8s-fake/harness.ts";
import { scriptTest } from "../../platforms/conformance.ts";

const NODES = ["gpu-1", "gpu-2"].map((name) => ({ name, resources: { "nvidia.com/gpu": 8 } }));
let cluster: FakeCluster;
beforeAll(async () => {
  cluster = await FakeCluster.start({ nodes: NODES });
});
afterAll(async () => {
  await cluster.stop();
});

test("403 on create: infra error naming the verb and resource, pointing at deploy/k8s/rbac.yaml; nothing left behind", async () => {
  const denied = await FakeCluster.start({ nodes: NODES, deny: ["create jobs"] });
  try {
    const t = scriptTest("rbac", PYTHON, "print(1)", { nodes: 1, ranksPerNode: 1 });
    const err = await runOnFake(denied, t, { runOptions: { runId: "abc123" } }).catch((e: Error) => e);
    expect(err).toBeInstanceOf(Error);
    expect((err as Error).message).toBe(
      'k8s: forbidden to create jobs.batch "gc-rbac-abc123" in namespace "gpu": jobs.batch is forbidden: User "system:serviceaccount:gpu:gpucheck" cannot create resource "jobs" in API group "batch" in the namespace "gpu": gpucheck\'s service account or user needs the Role in deploy/k8s/rbac.yaml (kubectl apply -n gpu -f deploy/k8s/rbac.yaml)',
    );
    expect((err as { exitCode?: number }).exitCode).toBe(3);
    // the ConfigMap and Service created before the refusal were cleaned up by label
    expect(denied.objects("gpucheck.dev/run=abc123")).toEqual([]);
  } finally {
    await denied.stop();
  }
}, 30_000);

test("403 on pods/log: infra (a run without its output cannot be judged), naming pods/log", async () => {
  const denied = await FakeCluster.start({ nodes: NODES, deny: ["get pods/log"] });
  try {
    const r = await runOnFake(denied, scriptTest("nolog", PYTHON, "import time; time.sleep(1)", { nodes: 1, ranksPerNode: 1 }));
    expect(r.units[0]!.status).toBe("infra");
    expect(r.units[0]!.message).toMatch(
      /^k8s: forbidden to get pods\/log "gc-nolog-[0-9a-f]{6}-0-[0-9a-f]{5}" in namespace "gpu": pods "gc-nolog-[0-9a-f]{6}-0-[0-9a-f]{5}" is forbidden: User "system:serviceaccount:gpu:gpucheck" cannot get resource "pods\/log" in API group "" in the namespace "gpu": .*rbac.yaml/,
    );
    expect(denied.objects("app.kubernetes.io/managed-by=gpucheck")).toEqual([]);
  } finally {
    await denied.stop();
  }
}, 30_000);

test("409: a leftover ConfigMap with the same name fails clearly and is never replaced or deleted", async () => {
  cluster.store.create("configmaps", "gpu", {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: "gc-clash-feed01-wl", labels: { owner: "someone-else" } },
    data: { keep: "me" },
  });
  const t = scriptTest("clash", PYTHON, "print(1)", { nodes: 1, ranksPerNode: 1 });
  const err = (await runOnFake(cluster, t, { runOptions: { runId: "feed01" } }).catch((e: Error) => e)) as Error;
  expect(err.message).toBe(
    'k8s: cannot create configmaps "gc-clash-feed01-wl" in namespace "gpu": it already exists: configmaps "gc-clash-feed01-wl" already exists; gpucheck never replaces objects it did not create: delete it (kubectl delete -n gpu configmaps gc-clash-feed01-wl) or run again',
  );
  expect(cluster.store.get("configmaps", "gpu", "gc-clash-feed01-wl")!.data).toEqual({ keep: "me" });
  expect(cluster.objects("gpucheck.dev/run=feed01")).toEqual([]);
}, 30_000);

test("a watch whose resourceVersion was compacted away (410 Gone) relists and still sees the pods finish", async () => {
  let compacted = 0;
  const t = scriptTest("relist", PYTHON, "import time; time.sleep(1.5); print('done', flush=True)", { nodes: 2, ranksPerNode: 1 });
  const r = await runOnFake(cluster, t, {
    during: (notes) => {
      if (!compacted && notes.some((n) => n.includes("gpucheck.dev/run="))) {
        compacted++;
        // drop the history and force every open watch to reconnect from its (now too old) version
        setTimeout(() => {
          cluster.store.compact();
          cluster.store.rv += 5;
          cluster.dropWatches();
        }, 300);
      }
    },
  });
  expect(r.units[0]!.status).toBe("completed");
  expect(r.notes.some((n) => /watch expired \(too old resource version: \d+ \(\d+\)\): listing pods again/.test(n))).toBe(true);
  const watches = cluster.requests.filter((q) => q.query.watch === "1" && q.path.endsWith("/pods"));
  expect(watches.length).toBeGreaterThanOrEqual(2);
  expect(watches.every((q) => Number(q.query.resourceVersion) > 0)).toBe(true);
}, 30_000);

test("a log stream that breaks mid-run is resumed from its last timestamp without losing or repeating lines", async () => {
  const breaking = await FakeCluster.start({ nodes: NODES, breakLogsAfter: 3 });
  try {
    const code = "import time\nfor i in range(8):\n    print('line', i, flush=True); time.sleep(0.15)";
    const r = await runOnFake(breaking, scriptTest("logs", PYTHON, code, { nodes: 1, ranksPerNode: 1 }));
    expect(r.units[0]!.status).toBe("completed");
    expect(readFileSync(r.units[0]!.ranks[0]!.path, "utf8")).toBe(Array.from({ length: 8 }, (_, i) => `line ${i}\n`).join(""));
    const logReqs = breaking.requests.filter((q) => q.path.endsWith("/log"));
    expect(logReqs.length).toBeGreaterThanOrEqual(2);
    expect(logReqs[1]!.query.sinceTime).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  } finally {
    await breaking.stop();
  }
}, 30_000);

test("a log read reset after its container ended is read again: the output is not lost", async () => {
  const reads = new Map<string, number>();
  // the first reads of each pod's log are reset: by the third its container has long ended
  const resetting = await FakeCluster.start({
    nodes: NODES,
    dropConnection: (q) => {
      if (!q.path.endsWith("/log")) return undefined;
      reads.set(q.path, (reads.get(q.path) ?? 0) + 1);
      return reads.get(q.path)! <= 3 ? "before" : undefined;
    },
  });
  try {
    const r = await runOnFake(resetting, scriptTest("reset-log", PYTHON, "print('the result line')", { nodes: 1, ranksPerNode: 1 }));
    expect(r.units[0]!.status).toBe("completed");
    expect(r.units[0]!.output).toBe("the result line\n");
    // three resets, then at least one read that arrives; a loaded machine may read again (the stream
    // can end before the container does), and the output above shows nothing was lost or repeated
    expect(reads.size).toBe(1);
    expect([...reads.values()][0]).toBeGreaterThanOrEqual(4);
  } finally {
    await resetting.stop();
  }
}, 30_000);

test("a finished container's log that never arrives: infra once the drain gives up, not a unit that completed silently", async () => {
  const resetting = await FakeCluster.start({ nodes: NODES, dropConnection: (q) => (q.path.endsWith("/log") ? "before" : undefined) });
  try {
    const r = await runOnFake(resetting, scriptTest("no-log", PYTHON, "print('the result line')", { nodes: 1, ranksPerNode: 1 }));
    expect(r.units[0]!.status).toBe("infra");
    expect(r.units[0]!.message).toMatch(/^the log of pod gc-no-log-[0-9a-f]{6}-0-[0-9a-f]{5} had not all arrived 10s after its container ended$/);
  } finally {
    await resetting.stop();
  }
}, 30_000);

test("a node that disappears mid-run: infra naming the node and NodeLost, not a test failure", async () => {
  const t = scriptTest("nodelost", PYTHON, "import time; print('up', flush=True); time.sleep(60)", { nodes: 2, ranksPerNode: 1, timeoutMs: 25_000 });
  // once both ranks run, gpu-2 goes away
  const poll = setInterval(() => {
    if (cluster.livePids().length === 2) {
      clearInterval(poll);
      setTimeout(() => cluster.loseNode("gpu-2"), 300);
    }
  }, 50);
  const r = await runOnFake(cluster, t).finally(() => clearInterval(poll));
  const u = r.units[0]!;
  expect(u.status).toBe("infra");
  expect(u.message).toMatch(/^pod gc-nodelost-[0-9a-f]{6}-\d-[0-9a-f]{5} on node gpu-2 was lost before it finished: DeletionByPodGC: PodGC: node no longer exists$/);
  expect(cluster.objects("app.kubernetes.io/managed-by=gpucheck")).toEqual([]);
  cluster.addNode({ name: "gpu-2", resources: { "nvidia.com/gpu": 8 } });
}, 30_000);

test("pods refused by admission (PodSecurity): the Job exists but its pods never do; the event says why", async () => {
  const psa = await FakeCluster.start({
    nodes: NODES,
    admitPod: (pod) => {
      const caps = pod.spec.containers.flatMap((c) => (c as { securityContext?: { capabilities?: { add?: string[] } } }).securityContext?.capabilities?.add ?? []);
      return caps.length
        ? `violates PodSecurity "baseline:latest": non-default capabilities (container "gpucheck" must not include "${caps.join('", "')}" in securityContext.capabilities.add)`
        : undefined;
    },
  });
  try {
    const t = scriptTest("psa", PYTHON, "print(1)", { nodes: 1, ranksPerNode: 1 });
    const r = await runOnFake(psa, t, { settings: { ipcLock: true }, queueTimeoutMs: 4500 });
    expect(r.units[0]!.status).toBe("infra");
    expect(r.units[0]!.message).toMatch(
      /^gave up after 5s waiting for pods to start: 1 of 1 pods not created yet \(FailedCreate: Error creating: pods "gc-psa-[0-9a-f]{6}-0-[0-9a-f]{5}" is forbidden: violates PodSecurity "baseline:latest": non-default capabilities \(container "gpucheck" must not include "IPC_LOCK" in securityContext.capabilities.add\)\)$/,
    );
    expect(psa.objects("app.kubernetes.io/managed-by=gpucheck")).toEqual([]);
  } finally {
    await psa.stop();
  }
}, 30_000);
