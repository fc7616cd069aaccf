// lib/kinds/gemm/parse.ts on its own: the gemm command's GPUCHECK_RESULT → the worst GPU per dtype with
// every GPU named, checksum mismatches named, and what it says when the line or a part is missing.
// The GPU results are written here in the workload's shape (no GPU ran them): UUIDs and bus ids from
// the H100 capture in workload/tests/fixtures/nvidia-smi-q-h100-8gpu-565.57.01.txt.
import { describe, expect, test } from "bun:test";
import { GEMM_DEFAULTS } from "../../lib/kinds/gemm/params.ts";
import { gemmMeasurement } from "../../lib/kinds/gemm/parse.ts";
import { headlineOf } from "../../lib/assess/judge.ts";

const HASH_A = "a".repeat(64);
const HASH_B = "b".repeat(64);
const sweep = (best: number, median: number, bestN = 8192) => ({
  best_tflops: best,
  best_n: bestN,
  median_tflops: median,
  shapes: [
    { n: 4096, tflops: median },
    { n: bestN, tflops: best },
  ],
});
const gpu = (rank: number, index: number, uuid: string, pci: string, dtypes: object, sha = HASH_A) => ({
  rank,
  local_rank: rank,
  host: "gpu01",
  device: { type: "cuda", name: "NVIDIA H100 80GB HBM3", cuda_index: rank, capability: "9.0", index, uuid, pci_bus_id: pci, unnamed: null },
  dtypes,
  checksum: { n: 4096, dtype: "bf16", sha256: sha },
});
const GPU0 = ["GPU-5d2a9c3e-1f0b-4c47-a3c1-9d6a0f1b2c3d", "00000000:18:00.0"] as const;
const GPU1 = ["GPU-8b1e7f20-44a1-4e2b-9b55-0c7d3e9a1f42", "00000000:2A:00.0"] as const;
const result = (ranks: object[], mismatched: number[] = [], notes: string[] = []) => ({
  world_size: ranks.length,
  backend: "nccl",
  torch: "2.5.1",
  sizes: [4096, 8192],
  iters: 10,
  warmup: 3,
  ranks,
  checksum: { mismatched_ranks: mismatched, notes },
});
const line = (o: unknown) => `[gpu01 rank 0] GPUCHECK_RESULT ${JSON.stringify(o)}\n`;

describe("gemmMeasurement", () => {
  test("per dtype the slowest GPU's best and median, every GPU named by host, index, UUID and PCI bus, worst first", () => {
    const out = line(
      result([gpu(0, 0, ...GPU0, { bf16: sweep(780.25, 700), fp8: sweep(1410, 1300) }), gpu(1, 1, ...GPU1, { bf16: sweep(650.5, 720, 4096), fp8: sweep(1390, 1310) })]),
    );
    const m = gemmMeasurement(out, { ...GEMM_DEFAULTS, dtypes: ["bf16", "fp8"] });
    expect(m.metrics).toEqual({ gemm_bf16_tflops_min: 650.5, gemm_bf16_median_min: 700, gemm_fp8_tflops_min: 1390, gemm_fp8_median_min: 1300, gemm_checksum_mismatches: 0 });
    expect(m.details!.gemm_bf16_tflops_min).toBe(
      "gpu01 GPU 1 (GPU-8b1e7f20-44a1-4e2b-9b55-0c7d3e9a1f42, 00000000:2A:00.0): best 650.5 TFLOP/s at 4096³, median 720.0 TFLOP/s; " +
        "gpu01 GPU 0 (GPU-5d2a9c3e-1f0b-4c47-a3c1-9d6a0f1b2c3d, 00000000:18:00.0): best 780.3 TFLOP/s at 8192³, median 700.0 TFLOP/s",
    );
    // the median metric lists the GPUs by their median
    expect(m.details!.gemm_bf16_median_min!.startsWith("gpu01 GPU 0 ")).toBe(true);
    expect(m.details!.gemm_checksum_mismatches).toBe("all 2 ranks hashed the bf16 4096³ product of identical seeded inputs alike");
    expect(m.unmeasured).toEqual({});
    // each GPU's own values, for per-component verdicts
    expect(m.components!.map((c) => [c.part, c.metrics])).toEqual([
      [
        { type: "gpu", host: "gpu01", rank: 0, index: 0, uuid: GPU0[0], pciBusId: GPU0[1], name: "NVIDIA H100 80GB HBM3" },
        { gemm_bf16_tflops: 780.25, gemm_bf16_median: 700, gemm_fp8_tflops: 1410, gemm_fp8_median: 1300 },
      ],
      [
        { type: "gpu", host: "gpu01", rank: 1, index: 1, uuid: GPU1[0], pciBusId: GPU1[1], name: "NVIDIA H100 80GB HBM3" },
        { gemm_bf16_tflops: 650.5, gemm_bf16_median: 720, gemm_fp8_tflops: 1390, gemm_fp8_median: 1310 },
      ],
    ]);
    expect(m.series!["bf16 gpu01 GPU 1 (GPU-8b1e7f20-44a1-4e2b-9b55-0c7d3e9a1f42, 00000000:2A:00.0)"]).toEqual([
      { x: 4096, y: 720 },
      { x: 4096, y: 650.5 },
    ]);
  });

  test("a dtype one GPU could not run is unmeasured with each GPU's reason, never the other GPUs' minimum", () => {
    const out = line(
      result([
        gpu(0, 0, ...GPU0, { fp8: sweep(1410, 1300) }),
        gpu(1, 1, ...GPU1, { fp8: { unmeasured: "fp8 needs torch 2.1 or later (torch.float8_e4m3fn, torch._scaled_mm), this is torch 2.0.1" } }),
      ]),
    );
    const m = gemmMeasurement(out);
    expect(m.metrics.gemm_fp8_tflops_min).toBeNull();
    expect(m.unmeasured!.gemm_fp8_tflops_min).toBe(
      "gpu01 GPU 1 (GPU-8b1e7f20-44a1-4e2b-9b55-0c7d3e9a1f42, 00000000:2A:00.0): fp8 needs torch 2.1 or later (torch.float8_e4m3fn, torch._scaled_mm), this is torch 2.0.1",
    );
    expect(m.unmeasured!.gemm_fp8_median_min).toBe(m.unmeasured!.gemm_fp8_tflops_min!);
    expect(m.components![1]!.metrics).toEqual({ gemm_fp8_tflops: null, gemm_fp8_median: null });
    expect(m.components![1]!.unmeasured!.gemm_fp8_tflops).toBe("fp8 needs torch 2.1 or later (torch.float8_e4m3fn, torch._scaled_mm), this is torch 2.0.1");
    // dtypes the test did not ask for have no metric at all
    expect(Object.keys(m.metrics)).toEqual(["gemm_fp8_tflops_min", "gemm_fp8_median_min", "gemm_checksum_mismatches"]);
  });

  test("components: one per rank, a GPU named by index, UUID and PCI bus, its own best and median; a dtype it could not run is null with its reason", () => {
    const out = line(
      result([
        gpu(0, 0, ...GPU0, { bf16: sweep(780.25, 700), fp8: sweep(1410, 1300) }),
        gpu(1, 1, ...GPU1, { bf16: sweep(650.5, 720), fp8: { unmeasured: "fp8 needs torch 2.1 or later (torch.float8_e4m3fn, torch._scaled_mm), this is torch 2.0.1" } }),
      ]),
    );
    expect(gemmMeasurement(out, { ...GEMM_DEFAULTS, dtypes: ["bf16", "fp8"] }).components).toEqual([
      {
        part: { type: "gpu", host: "gpu01", rank: 0, index: 0, uuid: GPU0[0], pciBusId: GPU0[1], name: "NVIDIA H100 80GB HBM3" },
        metrics: { gemm_bf16_tflops: 780.25, gemm_bf16_median: 700, gemm_fp8_tflops: 1410, gemm_fp8_median: 1300 },
      },
      {
        part: { type: "gpu", host: "gpu01", rank: 1, index: 1, uuid: GPU1[0], pciBusId: GPU1[1], name: "NVIDIA H100 80GB HBM3" },
        metrics: { gemm_bf16_tflops: 650.5, gemm_bf16_median: 720, gemm_fp8_tflops: null, gemm_fp8_median: null },
        unmeasured: {
          gemm_fp8_tflops: "fp8 needs torch 2.1 or later (torch.float8_e4m3fn, torch._scaled_mm), this is torch 2.0.1",
          gemm_fp8_median: "fp8 needs torch 2.1 or later (torch.float8_e4m3fn, torch._scaled_mm), this is torch 2.0.1",
        },
      },
    ]);
  });

  test("components: a CPU rank is a cpu part named by its rank; a dtype asked for that it never reported is null saying so", () => {
    const r = {
      rank: 1,
      local_rank: 1,
      host: "vm",
      device: { type: "cpu", name: "AMD EPYC", index: null, uuid: null, pci_bus_id: null },
      dtypes: { fp32: sweep(0.0051, 0.0049) },
      checksum: {},
    };
    expect(gemmMeasurement(line(result([r])), { ...GEMM_DEFAULTS, dtypes: ["fp32", "bf16"] }).components).toEqual([
      {
        part: { type: "cpu", host: "vm", rank: 1, name: "AMD EPYC" },
        metrics: { gemm_bf16_tflops: null, gemm_bf16_median: null, gemm_fp32_tflops: 0.0051, gemm_fp32_median: 0.0049 },
        unmeasured: { gemm_bf16_tflops: "rank 1 reported no bf16 result", gemm_bf16_median: "rank 1 reported no bf16 result" },
      },
    ]);
  });

  test("a dtype the test asked for that no rank reported is unmeasured", () => {
    const m = gemmMeasurement(line(result([gpu(0, 0, ...GPU0, { bf16: sweep(780, 700) })])), { ...GEMM_DEFAULTS, dtypes: ["bf16", "tf32"] });
    expect(m.unmeasured).toEqual({ gemm_tf32_tflops_min: "no rank reported tf32", gemm_tf32_median_min: "no rank reported tf32" });
  });

  test("CPU ranks: values in GFLOP/s in the details, which say device: cpu; the GPU dtypes unmeasured with the CPU's reason", () => {
    const cpu = (rank: number) => ({
      rank,
      local_rank: rank,
      host: "vm",
      device: { type: "cpu", name: "AMD EPYC", index: null, uuid: null, pci_bus_id: null },
      dtypes: { fp32: sweep(0.0051, 0.0049, 512), tf32: { unmeasured: "CPU: tf32 not measured" } },
      checksum: { n: 256, dtype: "fp32", sha256: HASH_A },
    });
    const m = gemmMeasurement(line({ ...result([cpu(0), cpu(1)]), backend: "gloo" }));
    expect(m.metrics.gemm_fp32_tflops_min).toBe(0.0051);
    expect(m.details!.gemm_fp32_tflops_min).toBe(
      "device: cpu; vm rank 0 (CPU: AMD EPYC): best 5.10 GFLOP/s at 512³, median 4.90 GFLOP/s; vm rank 1 (CPU: AMD EPYC): best 5.10 GFLOP/s at 512³, median 4.90 GFLOP/s",
    );
    expect(m.unmeasured!.gemm_tf32_tflops_min).toBe("vm rank 0 (CPU: AMD EPYC): CPU: tf32 not measured; vm rank 1 (CPU: AMD EPYC): CPU: tf32 not measured");
  });

  test("a GPU whose checksum differs from its model's majority is counted and named with both hashes", () => {
    const ranks = [gpu(0, 0, ...GPU0, {}), gpu(1, 1, ...GPU1, {}, HASH_B), gpu(2, 2, "GPU-0f", "00000000:3A:00.0", {})];
    const m = gemmMeasurement(line(result(ranks, [1])));
    expect(m.metrics.gemm_checksum_mismatches).toBe(1);
    expect(m.details!.gemm_checksum_mismatches).toBe(
      "gpu01 GPU 1 (GPU-8b1e7f20-44a1-4e2b-9b55-0c7d3e9a1f42, 00000000:2A:00.0): sha256 bbbbbbbbbbbb… differs from the majority of its model (aaaaaaaaaaaa… on 2 ranks) for the bf16 4096³ product of identical seeded inputs",
    );
  });

  test("a split without majority says so", () => {
    const m = gemmMeasurement(line(result([gpu(0, 0, ...GPU0, {}), gpu(1, 1, ...GPU1, {}, HASH_B)], [1], ["NVIDIA H100 80GB HBM3: no majority among 2 ranks"])));
    expect(
      m.details!.gemm_checksum_mismatches!.endsWith(
        "(aaaaaaaaaaaa… on 1 rank) for the bf16 4096³ product of identical seeded inputs; NVIDIA H100 80GB HBM3: no majority among 2 ranks",
      ),
    ).toBe(true);
  });

  test("a GPU torch could not match to nvidia-smi is named by its CUDA index and why", () => {
    const g = gpu(0, 0, ...GPU0, { bf16: sweep(780, 700) });
    const r = { ...g, device: { ...g.device, index: null, uuid: null, pci_bus_id: null, unnamed: "torch 1.13.1 gives no GPU UUID" } };
    expect(gemmMeasurement(line(result([r]))).details!.gemm_bf16_tflops_min).toBe(
      "gpu01 GPU cuda:0 (not matched to nvidia-smi: torch 1.13.1 gives no GPU UUID): best 780.0 TFLOP/s at 8192³, median 700.0 TFLOP/s",
    );
  });

  test("a rank without a checksum leaves the mismatch count unmeasured, naming it", () => {
    const r = gpu(1, 1, ...GPU1, {});
    const m = gemmMeasurement(line(result([gpu(0, 0, ...GPU0, {}), { ...r, checksum: {} }])));
    expect(m.metrics.gemm_checksum_mismatches).toBeNull();
    expect(m.unmeasured!.gemm_checksum_mismatches).toBe("no checksum from gpu01 GPU 1 (GPU-8b1e7f20-44a1-4e2b-9b55-0c7d3e9a1f42, 00000000:2A:00.0)");
    const { checksum: _, ...noSummary } = result([gpu(0, 0, ...GPU0, {})]);
    expect(gemmMeasurement(line(noSummary)).unmeasured!.gemm_checksum_mismatches).toBe("the result does not say which ranks' checksums differ");
  });

  test("the details say how the sweep began: the warm-up asked for, the shortest rank's, and a rank whose warm-up failed", () => {
    const warmed = (g: object, warmup: object) => ({ ...g, warmup });
    const out = line({
      ...result([
        warmed(gpu(0, 0, ...GPU0, { bf16: sweep(780, 700) }), { seconds: 30.02, calls: 2720, dtype: "bf16", n: 16384 }),
        warmed(gpu(1, 1, ...GPU1, { bf16: sweep(770, 690) }), {
          seconds: 0.01,
          calls: 0,
          dtype: "bf16",
          n: 16384,
          skipped: "bf16 matmul at 16384³ failed during the warm-up: CUDA out of memory",
        }),
      ]),
      warmup_seconds: 30,
    });
    const m = gemmMeasurement(out, { ...GEMM_DEFAULTS, dtypes: ["bf16"] });
    expect(m.details!.gemm_bf16_tflops_min!.split(": best")[0]).toBe(
      "after a 30 s warm-up (shortest rank 0.0 s); gpu01 GPU 1 (GPU-8b1e7f20-44a1-4e2b-9b55-0c7d3e9a1f42, 00000000:2A:00.0): bf16 matmul at 16384³ failed during the warm-up: CUDA out of memory; gpu01 GPU 1 (GPU-8b1e7f20-44a1-4e2b-9b55-0c7d3e9a1f42, 00000000:2A:00.0)",
    );
    // a result from before the warm-up existed says nothing of one
    expect(gemmMeasurement(line(result([gpu(0, 0, ...GPU0, { bf16: sweep(780, 700) })])), GEMM_DEFAULTS).details!.gemm_bf16_tflops_min!.startsWith("gpu01 GPU 0 ")).toBe(true);
  });

  test("no RESULT line, or one without ranks: exact messages", () => {
    expect(() => gemmMeasurement("Traceback (most recent call last):\n")).toThrow("no GPUCHECK_RESULT line in rank 0's output: the gemm sweep did not finish");
    expect(() => gemmMeasurement(line({ ...result([]) }))).toThrow("the gemm result lists no ranks");
    expect(() => gemmMeasurement(line({ world_size: 1 }))).toThrow("the gemm result lists no ranks");
  });
});

describe("gemm's headline", () => {
  test("is the first dtype the test asks for: fp32 on a CPU suite, bf16 by default, and bf16 when the block is absent", () => {
    expect(headlineOf("gemm", [], { ...GEMM_DEFAULTS, dtypes: ["fp32", "bf16"] })).toEqual({ metric: "gemm_fp32_tflops_min", unit: "TFLOP/s" });
    expect(headlineOf("gemm", [], { ...GEMM_DEFAULTS, dtypes: ["fp8"] })).toEqual({ metric: "gemm_fp8_tflops_min", unit: "TFLOP/s" });
    expect(headlineOf("gemm", [], undefined)).toEqual({ metric: "gemm_bf16_tflops_min", unit: "TFLOP/s" });
  });
});
