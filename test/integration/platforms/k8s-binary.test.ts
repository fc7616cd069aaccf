// The compiled binary (`npm run build` → compiled/gpucheck) on the k8s platform: @kubernetes/client-node
// loaded lazily inside a `bun build --compile` executable, talking to the in-process fake API server.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { spawn, spawnSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseAllDocuments } from "yaml";
import { FakeCluster } from "../../k8s-fake/cluster.ts";
import { tempDir } from "../../tmp.ts";

const binary = join(import.meta.dir, "..", "..", "..", "compiled", "gpucheck");

const SUITE = `name: k8s-binary
description: per-node inventory and a two-node gloo all-reduce
platform:
  type: k8s
  k8s:
    image: local/python
defaults:
  nodes: 2
  gpusPerNode: 0
  ranksPerNode: 1
  timeout: 5m
tests:
  - name: inventory
    kind: inventory
    perNode: true
  - name: allreduce
    kind: collective
    collective: { op: all_reduce, minBytes: 1KiB, maxBytes: 64KiB, factor: 4, iters: 3, warmup: 1, backend: gloo }
    expect:
      busbw: { min: 0.0001 GB/s }
  - name: endless
    kind: collective
    collective: { op: all_reduce, minBytes: 1KiB, maxBytes: 64MiB, factor: 2, iters: 5000, warmup: 1, backend: gloo }
`;

describe.skipIf(!existsSync(binary))("compiled/gpucheck on the k8s platform", () => {
  let cluster: FakeCluster;
  const dir = tempDir("gpucheck-k8s-bin-");
  beforeAll(async () => {
    cluster = await FakeCluster.start({ nodes: ["gpu-1", "gpu-2"].map((name) => ({ name })) });
    cluster.kubeconfig(dir, { namespace: "acceptance" });
    writeFileSync(join(dir, "suite.yaml"), SUITE);
  });
  afterAll(async () => {
    await cluster.stop();
  });

  /** async: the fake answers from this process, so the event loop must keep running */
  function gpucheck(args: string[], interruptAfterMs?: number): Promise<{ code: number | null; out: string }> {
    return new Promise((resolve) => {
      const p = spawn(binary, args, { cwd: dir, env: { PATH: "/usr/bin:/bin", HOME: dir, KUBECONFIG: join(dir, "kubeconfig") } });
      let out = "";
      p.stdout.on("data", (d) => (out += d));
      p.stderr.on("data", (d) => (out += d));
      if (interruptAfterMs) setTimeout(() => p.kill("SIGINT"), interruptAfterMs);
      p.on("close", (code) => resolve({ code, out }));
    });
  }

  test("plan --platform k8s --json: the manifests as YAML that parses back to the same objects", () => {
    const r = spawnSync(binary, ["plan", "cpu-smoke", "--platform", "k8s", "--image", "nvcr.io/nvidia/pytorch:24.08-py3", "--json"], { cwd: dir, encoding: "utf8" });
    expect(r.status).toBe(0);
    for (const t of JSON.parse(r.stdout).tests) {
      expect(parseAllDocuments(t.rendered.yaml).map((d) => d.toJS())).toEqual(t.rendered.manifests);
    }
  });

  test("a suite runs through client-node inside the binary: per-node units, a real gloo all-reduce, nothing left", async () => {
    const r = await gpucheck(["suite", "suite.yaml", "--only", "inventory,allreduce", "--python", "/usr/bin/python3", "-o", "out", "--progress", "none"]);
    expect(r.out).toContain("gpucheck k8s-binary (k8s): PASSED");
    expect(r.code).toBe(0);
    const results = JSON.parse(readFileSync(join(dir, "out", "results.json"), "utf8"));
    expect(results.tests.map((t: { units: Array<{ unit: string }> }) => t.units.map((u) => u.unit).sort())).toEqual([["gpu-1", "gpu-2"], ["all"]]);
    expect(cluster.objects("app.kubernetes.io/managed-by=gpucheck")).toEqual([]);
  }, 120_000);

  test("Ctrl-C on the binary: exit 130, every object of the run deleted, no rank left running", async () => {
    const r = await gpucheck(["suite", "suite.yaml", "--only", "endless", "--python", "/usr/bin/python3", "-o", "out-cancel", "--progress", "none"], 6000);
    expect(r.code).toBe(130);
    expect(cluster.objects("app.kubernetes.io/managed-by=gpucheck")).toEqual([]);
    expect(cluster.livePids()).toEqual([]);
  }, 120_000);
});
