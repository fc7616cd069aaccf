// What a valid suite means: every default made explicit, units converted, env kept as written.
import { describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { load } from "./_load.ts";

describe("defaults", () => {
  test("a minimal test gets every field filled in", async () => {
    const s = await load({ "s.yaml": "name: s\ntests:\n  - name: ar\n    kind: collective\n" });
    expect(s).toEqual({
      name: "s",
      description: "",
      platform: { type: "local", settings: {} },
      queueTimeoutMs: 30 * 60_000,
      tests: [
        {
          name: "ar",
          kind: "collective",
          nodes: 1,
          gpusPerNode: 8,
          ranksPerNode: 8,
          perNode: false,
          timeoutMs: 15 * 60_000,
          env: {},
          python: "python3",
          collective: {
            op: "all_reduce",
            minBytes: 8,
            maxBytes: 8 * 1024 ** 3,
            factor: 2,
            iters: 20,
            warmup: 5,
            dtype: "float",
            check: true,
            checkIters: 20,
            backend: "auto",
            impl: "workload",
          },
          expect: [],
        },
      ],
      source: { path: "s.yaml", sha256: createHash("sha256").update("name: s\ntests:\n  - name: ar\n    kind: collective\n").digest("hex"), builtin: false },
    });
  });

  test("CPU tests sweep to 16 MiB; inventory runs once per node with one rank", async () => {
    const s = await load({
      "s.yaml": "name: s\ndefaults: { gpusPerNode: 0, ranksPerNode: 2 }\ntests:\n  - { name: ar, kind: collective }\n  - { name: inv, kind: inventory, gpusPerNode: 8 }\n",
    });
    expect(s.tests[0].collective?.maxBytes).toBe(16 * 1024 ** 2);
    expect(s.tests[0].collective?.checkIters).toBe(1); // one checked call per size on CPU: the smoke test stays quick
    expect(s.tests[0].ranksPerNode).toBe(2);
    expect(s.tests[1]).toMatchObject({ perNode: true, gpusPerNode: 8, ranksPerNode: 2 });
    const inv = await load({ "s.yaml": "name: s\ntests:\n  - { name: inv, kind: inventory }\n" });
    expect(inv.tests[0]).toMatchObject({ perNode: true, gpusPerNode: 8, ranksPerNode: 1 });
  });

  test("training defaults depend on the model and the data", async () => {
    const s = await load({
      "s.yaml": `name: s
tests:
  - { name: r, kind: train }
  - { name: f, kind: train, train: { data: fashionmnist, dataDir: /data/fm } }
  - { name: t, kind: train, train: { model: transformer } }
`,
    });
    expect(s.tests[0].train).toEqual({ model: "resnet18", data: "synthetic", batchSize: 256, steps: 100, warmupSteps: 10, imageSize: 224, precision: "auto" });
    expect(s.tests[1].train).toEqual({ model: "resnet18", data: "fashionmnist", dataDir: "/data/fm", batchSize: 256, steps: 100, warmupSteps: 10, precision: "auto" });
    expect(s.tests[2].train).toEqual({
      model: "transformer",
      data: "synthetic",
      batchSize: 16,
      steps: 50,
      warmupSteps: 5,
      layers: 12,
      width: 768,
      heads: 12,
      seqLen: 1024,
      vocab: 50304,
      precision: "auto",
    });
  });
});

describe("values", () => {
  test("sizes, durations and env values as written", async () => {
    const s = await load({
      "s.yaml": `name: s
defaults:
  timeout: 1h30m
  queueTimeout: 90
  env: { NCCL_IB_TIMEOUT: 1.10, NCCL_DEBUG: WARN, FLAG: true, HEX: 0x1F }
tests:
  - name: ar
    kind: collective
    timeout: 500ms
    env: { NCCL_DEBUG: INFO }
    collective: { minBytes: 96K, maxBytes: 1.5GiB, factor: 4 }
`,
    });
    expect(s.queueTimeoutMs).toBe(90_000);
    const t = s.tests[0];
    expect(t.timeoutMs).toBe(500);
    expect(t.env).toEqual({ NCCL_IB_TIMEOUT: "1.10", NCCL_DEBUG: "INFO", FLAG: "true", HEX: "0x1F" });
    expect(t.collective).toMatchObject({ minBytes: 98304, maxBytes: 1.5 * 1024 ** 3, factor: 4 });
  });

  test("thresholds in the metric's canonical unit, with the size and the text as written", async () => {
    const s = await load({
      "s.yaml": `name: s
tests:
  - name: ar
    kind: collective
    expect:
      busbw: { min: 0.4 TB/s }
      busbw@1GiB: { min: 3200 Gb/s }
      time_us@8B: { max: 0.05 ms }
      wrong: { max: 0 }
      gpu_temp_max: { max: 85 °C }
  - name: t
    kind: train
    train: { model: transformer }
    expect:
      samples_per_s: { min: 2790 img/s, baseline: 95% }
      step_time_p95_ms: { max: 1.5 s }
      allreduce_share: { max: 30% }
      tflops: { min: 1.2 PFLOP/s }
`,
    });
    expect(s.tests[0].expect).toEqual([
      { metric: "busbw", unit: "GB/s", min: 400, text: "busbw: min 0.4 TB/s" },
      { metric: "busbw", unit: "GB/s", min: 400, at: 1024 ** 3, text: "busbw@1GiB: min 3200 Gb/s" },
      { metric: "time_us", unit: "us", max: 50, at: 8, text: "time_us@8B: max 0.05 ms" },
      { metric: "wrong", unit: "count", max: 0, text: "wrong: max 0" },
      { metric: "gpu_temp_max", unit: "C", max: 85, text: "gpu_temp_max: max 85 °C" },
    ]);
    expect(s.tests[1].expect).toEqual([
      { metric: "samples_per_s", unit: "samples/s", min: 2790, baselineRatio: 0.95, text: "samples_per_s: min 2790 img/s, baseline 95%" },
      { metric: "step_time_p95_ms", unit: "ms", max: 1500, text: "step_time_p95_ms: max 1.5 s" },
      { metric: "allreduce_share", unit: "%", max: 30, text: "allreduce_share: max 30%" },
      { metric: "tflops", unit: "TFLOP/s", min: 1200, text: "tflops: min 1.2 PFLOP/s" },
    ]);
  });

  test("anchors and merge keys work, with x- keys to hold the anchors", async () => {
    const s = await load({
      "s.yaml": `name: s
x-common: &common { kind: collective, nodes: 2, env: { NCCL_ALGO: Ring } }
tests:
  - { <<: *common, name: a }
  - { <<: *common, name: b, nodes: 4 }
`,
    });
    expect(s.tests.map((t) => [t.name, t.kind, t.nodes, t.env.NCCL_ALGO])).toEqual([
      ["a", "collective", 2, "Ring"],
      ["b", "collective", 4, "Ring"],
    ]);
  });
});
