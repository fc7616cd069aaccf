// lib/kinds/membw/parse.ts on its own: the membw command's GPUCHECK_RESULT → the worst GPU per operation
// with every GPU named, each GPU's own values as a component, and what it says when the line or a
// part is missing. The GPU results are written here in the workload's shape (no GPU ran them): UUIDs
// and bus ids from the H100 capture in workload/tests/fixtures/nvidia-smi-q-h100-8gpu-565.57.01.txt.
import { describe, expect, test } from "bun:test";
import { membwMeasurement } from "../../lib/kinds/membw/parse.ts";

const op = (best: number, median: number, bytes: number) => ({ best_gbps: best, median_gbps: median, bytes, gbps: [median, best] });
const SIZE = 2 * 1024 ** 3;
const gpu = (rank: number, index: number, uuid: string, pci: string, ops: object) => ({
  rank,
  local_rank: rank,
  host: "gpu01",
  device: { type: "cuda", name: "NVIDIA H100 80GB HBM3", cuda_index: rank, capability: "9.0", index, uuid, pci_bus_id: pci, unnamed: null },
  ops,
});
const GPU0 = ["GPU-5d2a9c3e-1f0b-4c47-a3c1-9d6a0f1b2c3d", "00000000:18:00.0"] as const;
const GPU1 = ["GPU-8b1e7f20-44a1-4e2b-9b55-0c7d3e9a1f42", "00000000:2A:00.0"] as const;
const result = (ranks: object[]) => ({ world_size: ranks.length, backend: "nccl", torch: "2.5.1", size: SIZE, iters: 20, warmup: 3, ranks });
const line = (o: unknown) => `[gpu01 rank 0] GPUCHECK_RESULT ${JSON.stringify(o)}\n`;
const healthy = () => ({ copy: op(2950.25, 2931, 2 * SIZE), triad: op(3010, 2990, 3 * SIZE) });

describe("membwMeasurement", () => {
  test("per operation the slowest GPU's best and median, every GPU named by host, index, UUID and PCI bus, worst first", () => {
    const slow = { copy: op(2400.5, 2390, 2 * SIZE), triad: op(3020, 2980, 3 * SIZE) };
    const m = membwMeasurement(line(result([gpu(0, 0, ...GPU0, healthy()), gpu(1, 1, ...GPU1, slow)])));
    expect(m.metrics).toEqual({ membw_copy_gbps_min: 2400.5, membw_copy_median_min: 2390, membw_triad_gbps_min: 3010, membw_triad_median_min: 2980 });
    expect(m.unmeasured).toEqual({});
    expect(m.details!.membw_copy_gbps_min).toBe(
      "gpu01 GPU 1 (GPU-8b1e7f20-44a1-4e2b-9b55-0c7d3e9a1f42, 00000000:2A:00.0): best 2400.5 GB/s, median 2390.0 GB/s; " +
        "gpu01 GPU 0 (GPU-5d2a9c3e-1f0b-4c47-a3c1-9d6a0f1b2c3d, 00000000:18:00.0): best 2950.3 GB/s, median 2931.0 GB/s",
    );
    // the triad's best is GPU 0's, its median GPU 1's: each metric lists the GPUs by its own statistic
    expect(m.details!.membw_triad_gbps_min!.startsWith("gpu01 GPU 0 ")).toBe(true);
    expect(m.details!.membw_triad_median_min!.startsWith("gpu01 GPU 1 ")).toBe(true);
    expect(m.components).toEqual([
      {
        part: { type: "gpu", host: "gpu01", rank: 0, index: 0, uuid: GPU0[0], pciBusId: GPU0[1], name: "NVIDIA H100 80GB HBM3" },
        metrics: { membw_copy_gbps: 2950.25, membw_copy_median: 2931, membw_triad_gbps: 3010, membw_triad_median: 2990 },
        unmeasured: {},
      },
      {
        part: { type: "gpu", host: "gpu01", rank: 1, index: 1, uuid: GPU1[0], pciBusId: GPU1[1], name: "NVIDIA H100 80GB HBM3" },
        metrics: { membw_copy_gbps: 2400.5, membw_copy_median: 2390, membw_triad_gbps: 3020, membw_triad_median: 2980 },
        unmeasured: {},
      },
    ]);
  });

  test("an operation one GPU could not run is unmeasured with that GPU's reason, never the other GPUs' minimum", () => {
    const why = "triad of 2147483648-byte buffers failed: CUDA out of memory. Tried to allocate 2.00 GiB";
    const m = membwMeasurement(line(result([gpu(0, 0, ...GPU0, healthy()), gpu(1, 1, ...GPU1, { copy: op(2900, 2880, 2 * SIZE), triad: { unmeasured: why } })])));
    expect(m.metrics.membw_triad_gbps_min).toBeNull();
    expect(m.unmeasured!.membw_triad_gbps_min).toBe(`gpu01 GPU 1 (GPU-8b1e7f20-44a1-4e2b-9b55-0c7d3e9a1f42, 00000000:2A:00.0): ${why}`);
    expect(m.unmeasured!.membw_triad_median_min).toBe(m.unmeasured!.membw_triad_gbps_min!);
    expect(m.metrics.membw_copy_gbps_min).toBe(2900);
    expect(m.components![1]!.metrics.membw_triad_gbps).toBeNull();
    expect(m.components![1]!.unmeasured).toEqual({ membw_triad_gbps: why, membw_triad_median: why });
  });

  test("a rank without an operation's result is named as not having it", () => {
    const m = membwMeasurement(line(result([gpu(0, 0, ...GPU0, { triad: op(3000, 2990, 3 * SIZE) })])));
    expect(m.unmeasured!.membw_copy_gbps_min).toBe("gpu01 GPU 0 (GPU-5d2a9c3e-1f0b-4c47-a3c1-9d6a0f1b2c3d, 00000000:18:00.0): no copy result");
  });

  test("CPU ranks are labelled as host memory in the details", () => {
    const cpu = (rank: number) => ({
      rank,
      local_rank: rank,
      host: "vm",
      device: { type: "cpu", name: "AMD EPYC", index: null, uuid: null, pci_bus_id: null },
      ops: { copy: op(9.5, 8.25, 2), triad: op(12, 11, 3) },
    });
    const m = membwMeasurement(line(result([cpu(0), cpu(1)])));
    expect(m.details!.membw_copy_median_min).toBe(
      "device: cpu (host memory, no HBM); vm rank 0 (CPU: AMD EPYC): best 9.5 GB/s, median 8.3 GB/s; vm rank 1 (CPU: AMD EPYC): best 9.5 GB/s, median 8.3 GB/s",
    );
    expect(m.components![0]!.part).toEqual({ type: "cpu", host: "vm", rank: 0, name: "AMD EPYC" });
  });

  test("no result line, or one without ranks, is a parse error that says so", () => {
    expect(() => membwMeasurement("[gpu01 rank 0] Traceback (most recent call last):\n")).toThrow("no GPUCHECK_RESULT line in rank 0's output: the membw run did not finish");
    expect(() => membwMeasurement(line(result([])))).toThrow("the membw result lists no ranks");
  });
});
