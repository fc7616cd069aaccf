// Plan equals run, k8s platform, against the in-process fake API server: every object the run
// creates is the rendered manifest with {{runId}} and {{namespace}} bound (the ConfigMap carrying
// the workload's real files where plan describes them). --keep leaves the objects to read back.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { workloadFiles } from "../../lib/core/assets.ts";
import { bindSlots, slotsIn } from "../../lib/core/slots.ts";
import { k8s } from "../../plugins/k8s.ts";
import { resourceName } from "../../plugins/k8s/cleanup.ts";
import { configMapKey } from "../../plugins/k8s/names.ts";
import { FakeCluster } from "../k8s-fake/cluster.ts";
import { PYTHON, runOnFake } from "../k8s-fake/harness.ts";
import { runContextFor, scriptTest } from "../platforms/conformance.ts";
import { tempDir } from "../tmp.ts";

let cluster: FakeCluster;
beforeAll(async () => {
  cluster = await FakeCluster.start({ nodes: ["n-1", "n-2"].map((name) => ({ name, labels: {}, resources: { "nvidia.com/gpu": 8 }, taints: [] })) });
});
afterAll(async () => {
  await cluster.stop();
});

describe("plan equals run: k8s", () => {
  test("indexed job on 2 nodes: each created object is the rendered one with the run id and the kubeconfig's namespace bound", async () => {
    const t = scriptTest("pr", PYTHON, "print(1)", { nodes: 2, ranksPerNode: 1 });
    const settings = k8s.settings.parse({ image: "python:3-local" });
    const rendered = k8s.render(runContextFor(t, { settings, outDir: tempDir("gpucheck-k8s-plan-"), signal: new AbortController().signal }));
    expect(Object.keys(rendered.slots)).toEqual(["runId", "namespace"]);
    const r = await runOnFake(cluster, t, { cli: { keep: true }, runOptions: { runId: "feed42" } });
    expect(r.units.map((u) => u.status)).toEqual(["completed"]);
    // the harness's kubeconfig names namespace "gpu"
    const bound = bindSlots(rendered.manifests, { runId: "feed42", namespace: "gpu" });
    expect(slotsIn(bound).filter((n) => n === "runId" || n === "namespace")).toEqual([]);
    for (const m of bound) {
      const created = cluster.store.get(resourceName(m.apiVersion, m.kind).split(".")[0]!, "gpu", m.metadata.name);
      expect(created, `${m.kind} ${m.metadata.name}`).toBeDefined();
      expect(created!.metadata.labels).toEqual(m.metadata.labels);
      if (m.kind === "ConfigMap") {
        expect(created!.data).toEqual(Object.fromEntries([...workloadFiles()].map(([p, text]) => [configMapKey(p), text])));
        expect(Object.keys((m as unknown as { data: object }).data)).toEqual(Object.keys(created!.data as object));
      } else expect(created!.spec).toMatchObject((m as unknown as { spec: object }).spec);
    }
  });
});
