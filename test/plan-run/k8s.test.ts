// Plan equals run, k8s platform, against the in-process fake API server: every object the run
// creates is the rendered manifest with {{runId}} and {{namespace}} bound (the ConfigMap carrying
// the workload's real files where plan describes them). --keep leaves the objects to read back.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { workloadFiles } from "../../lib/core/assets.ts";
import { bindSlots, slotsIn } from "../../lib/core/slots.ts";
import { k8s } from "../../plugins/k8s.ts";
import type { Manifest } from "../../plugins/k8s/input.ts";
import { resourceName } from "../../plugins/k8s/cleanup.ts";
import { configMapKey } from "../../plugins/k8s/names.ts";
import { FakeCluster } from "../k8s-fake/cluster.ts";
import { PYTHON, runOnFake } from "../k8s-fake/harness.ts";
import { runContextFor, scriptTest } from "../platforms/conformance.ts";
import { tempDir } from "../tmp.ts";
import "../../cli/platforms.ts";
import { planLines } from "../pipeline/planned-suite.ts";
import { fakeWorkload } from "../fakes/fake-workload.ts";

const NODES = ["n-1", "n-2", "n-3", "n-4"];
let cluster: FakeCluster;
beforeAll(async () => {
  cluster = await FakeCluster.start({ nodes: NODES.map((name) => ({ name, labels: {}, resources: { "nvidia.com/gpu": 8 }, taints: [] })) });
});
afterAll(async () => {
  await cluster.stop();
});

/** every object the run created is the bound rendering: labels equal, spec a superset (the API server adds defaults) */
function expectCreatedAsRendered(manifests: Manifest[], values: Record<string, string>): void {
  const bound = bindSlots(manifests, values);
  expect(slotsIn(bound).filter((n) => n in values)).toEqual([]);
  for (const m of bound) {
    const created = cluster.store.get(resourceName(m.apiVersion, m.kind).split(".")[0]!, "gpu", m.metadata.name);
    expect(created, `${m.kind} ${m.metadata.name}`).toBeDefined();
    expect(created!.metadata.labels).toEqual(m.metadata.labels);
    if (m.kind === "ConfigMap") {
      expect(created!.data).toEqual(Object.fromEntries([...workloadFiles()].map(([p, text]) => [configMapKey(p), text])));
      expect(Object.keys((m as unknown as { data: object }).data)).toEqual(Object.keys(created!.data as object));
    } else expect(created!.spec).toMatchObject((m as unknown as { spec: object }).spec);
  }
}

describe("plan equals run: k8s", () => {
  test("indexed job on 2 nodes: each created object is the rendered one with the run id and the kubeconfig's namespace bound", async () => {
    const t = scriptTest("pr", PYTHON, "print(1)", { nodes: 2, ranksPerNode: 1 });
    const settings = k8s.settings.parse({ image: "python:3-local" });
    const rendered = k8s.render(runContextFor(t, { settings, outDir: tempDir("gpucheck-k8s-plan-"), signal: new AbortController().signal }));
    expect(Object.keys(rendered.slots)).toEqual(["runId", "namespace"]);
    const r = await runOnFake(cluster, t, { cli: { keep: true }, runOptions: { runId: "feed42" } });
    expect(r.units.map((u) => u.status)).toEqual(["completed"]);
    // the harness's kubeconfig names namespace "gpu"
    expectCreatedAsRendered(rendered.manifests, { runId: "feed42", namespace: "gpu" });
  });

  test("a pairwise round: gpucheck plan's Service and Indexed Job per pair are the objects the run creates", async () => {
    const dir = tempDir("gpucheck-k8s-plan-pairs-");
    const { suite, plan } = await planLines(dir, [
      "name: pairs",
      `platform: { type: k8s, k8s: { image: python:3-local, nodes: [${NODES.join(", ")}] } }`,
      `defaults: { python: ${fakeWorkload(dir)}, gpusPerNode: 0, ranksPerNode: 1 }`,
      "tests:",
      "  - { name: fabric, kind: collective, pattern: pairwise, collective: { backend: gloo } }",
    ]);
    const planned = plan.tests[0]!;
    const rendered = planned.rendered as { manifests: Manifest[] };
    expect(planned.units!.map((u) => u.name)).toEqual(["1.n-1+n-2", "1.n-3+n-4"]);
    expect(rendered.manifests.map((m) => m.kind)).toEqual(["ConfigMap", "Service", "Job", "Service", "Job"]);
    const r = await runOnFake(cluster, planned, {
      settings: { nodes: NODES },
      cli: { keep: true },
      runOptions: { runId: "beef01" },
      // the Jobs' deadline counts the suite's queue timeout: the run's suite is the planned one
      queueTimeoutMs: suite.queueTimeoutMs,
    });
    expect(r.units.map((u) => [u.unit, u.status, u.hosts])).toEqual([
      ["1.n-1+n-2", "completed", ["n-1", "n-2"]],
      ["1.n-3+n-4", "completed", ["n-3", "n-4"]],
    ]);
    expectCreatedAsRendered(rendered.manifests, { runId: "beef01", namespace: "gpu" });
  });
});
