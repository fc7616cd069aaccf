// lib/kinds/pcie/parse.ts and pcie-link.ts on their own: the pcie command's GPUCHECK_RESULT → the worst
// GPU per operation and phase, links below their maximum and replays named, and the reason whenever a
// link or counter could not be read. The GPU results are written here in the workload's shape (no GPU
// ran them): UUIDs, bus ids and replay counts from the H100 capture in
// workload/tests/fixtures/nvidia-smi-q-h100-8gpu-535.161.08-hw-slowdown.txt (67 and 63 replays).
import { describe, expect, test } from "bun:test";
import { pcieMeasurement } from "../../lib/kinds/pcie/parse.ts";

const SIZE = 256 * 1024 ** 2;
const op = (best: number, median: number, bytes = SIZE) => ({ best_gbps: best, median_gbps: median, bytes, gbps: [median, best] });
const phase = (h2d: number, d2h = 54, bidir = 100) => ({ h2d: op(h2d, h2d - 0.5), d2h: op(d2h, d2h - 0.5), bidir: op(bidir, bidir - 1, 2 * SIZE) });
const link = (gen: number, width: number, before = 67, after = 67) => ({ gen, gen_max: 5, width, width_max: 16, replays_before: before, replays_after: after });
const nic = (device: string, bdf: string, width = 16, speed = 32) => ({ device, pci_bus_id: bdf, speed_gts: speed, speed_max_gts: 32, width, width_max: 16 });
const GPU0 = ["GPU-5d2a9c3e-1f0b-4c47-a3c1-9d6a0f1b2c3d", "00000000:18:00.0"] as const;
const GPU1 = ["GPU-8b1e7f20-44a1-4e2b-9b55-0c7d3e9a1f42", "00000000:2A:00.0"] as const;
const P0 = `gpu01 GPU 0 (${GPU0[0]}, ${GPU0[1]})`;
const P1 = `gpu01 GPU 1 (${GPU1[0]}, ${GPU1[1]})`;
const gpu = (rank: number, ids: readonly [string, string], l: object, nics: object[] | null, solo = phase(55.5), all = phase(50)) => ({
  rank,
  local_rank: rank,
  host: "gpu01",
  device: { type: "cuda", name: "NVIDIA H100 80GB HBM3", cuda_index: rank, capability: "9.0", index: rank, uuid: ids[0], pci_bus_id: ids[1], unnamed: null },
  size: SIZE,
  solo,
  all,
  link: l,
  nics,
});
const result = (ranks: object[]) => ({ world_size: ranks.length, backend: "nccl", torch: "2.5.1", size: SIZE, iters: 20, warmup: 3, ranks });
const line = (o: unknown) => `[gpu01 rank 0] GPUCHECK_RESULT ${JSON.stringify(o)}\n`;
const NICS = [nic("mlx5_0", "0000:1a:00.0"), nic("mlx5_1", "0000:2b:00.0")];
const HCAS = ["mlx5_0", "mlx5_1"];
// the port above an HCA as workload/gpucheck_workload/pcie_link.py upstream_port reports it
const port = (bdf: string, speed: number | null, width: number | null, unread?: string) => ({ pci_bus_id: bdf, speed_max_gts: speed, width_max: width, ...(unread && { unread }) });

describe("pcieMeasurement", () => {
  test("per operation and phase the slowest GPU's best GB/s, every GPU named worst first", () => {
    const m = pcieMeasurement(line(result([gpu(0, GPU0, link(5, 16), NICS), gpu(1, GPU1, link(5, 16), null, phase(27.5, 26), phase(26))])), HCAS);
    expect(m.metrics).toEqual({
      pcie_h2d_gbps_min: 27.5,
      pcie_d2h_gbps_min: 26,
      pcie_bidir_gbps_min: 100,
      pcie_h2d_all_gbps_min: 26,
      pcie_d2h_all_gbps_min: 54,
      pcie_bidir_all_gbps_min: 100,
      pcie_link_degraded: 0,
      pcie_replays: 0,
    });
    expect(m.unmeasured).toEqual({});
    expect(m.details!.pcie_h2d_gbps_min).toBe(`${P1}: best 27.5 GB/s, median 27.0 GB/s; ${P0}: best 55.5 GB/s, median 55.0 GB/s`);
    expect(m.details!.pcie_link_degraded).toBe(
      `at their maximum (4 of 4 links): ${P0}: Gen5 x16 (max Gen5 x16, read while its copies ran); ${P1}: Gen5 x16 (max Gen5 x16, read while its copies ran); ` +
        "gpu01 mlx5_0 (0000:1a:00.0): 32 GT/s x16 (max 32 GT/s x16; upstream port not reported); gpu01 mlx5_1 (0000:2b:00.0): 32 GT/s x16 (max 32 GT/s x16; upstream port not reported)",
    );
    expect(m.details!.pcie_replays).toBe("no PCIe replay on any of the 2 GPUs during the copies (nvidia-smi -q Replays Since Reset before and after)");
    expect(m.components!.map((c) => c.part)).toEqual([
      { type: "gpu", host: "gpu01", rank: 0, index: 0, uuid: GPU0[0], pciBusId: GPU0[1], name: "NVIDIA H100 80GB HBM3" },
      { type: "gpu", host: "gpu01", rank: 1, index: 1, uuid: GPU1[0], pciBusId: GPU1[1], name: "NVIDIA H100 80GB HBM3" },
      { type: "nic", host: "gpu01", name: "mlx5_0", pciBusId: "0000:1a:00.0" },
      { type: "nic", host: "gpu01", name: "mlx5_1", pciBusId: "0000:2b:00.0" },
    ]);
    expect(m.components![1]!.metrics).toEqual({
      pcie_h2d_gbps: 27.5,
      pcie_d2h_gbps: 26,
      pcie_bidir_gbps: 100,
      pcie_h2d_all_gbps: 26,
      pcie_d2h_all_gbps: 54,
      pcie_bidir_all_gbps: 100,
      pcie_gen: 5,
      pcie_gen_max: 5,
      pcie_width: 16,
      pcie_width_max: 16,
      pcie_replays: 0,
    });
    expect(m.components![3]!.metrics).toEqual({ pcie_speed_gts: 32, pcie_speed_max_gts: 32, pcie_width: 16, pcie_width_max: 16 });
  });

  test("a GPU trained down to Gen4 and an HCA at x8 are counted and named; replays are the counters' growth, each GPU named", () => {
    const nics = [nic("mlx5_0", "0000:1a:00.0"), nic("mlx5_1", "0000:2b:00.0", 8)];
    const m = pcieMeasurement(line(result([gpu(0, GPU0, link(5, 16, 67, 67), nics), gpu(1, GPU1, link(4, 16, 63, 75), null)])), HCAS);
    expect(m.metrics.pcie_link_degraded).toBe(2);
    expect(m.details!.pcie_link_degraded).toBe(
      `below their maximum: ${P1}: Gen4 x16 (max Gen5 x16, read while its copies ran); gpu01 mlx5_1 (0000:2b:00.0): 32 GT/s x8 (max 32 GT/s x16; upstream port not reported); ` +
        `at their maximum (2 of 4 links): ${P0}: Gen5 x16 (max Gen5 x16, read while its copies ran); gpu01 mlx5_0 (0000:1a:00.0): 32 GT/s x16 (max 32 GT/s x16; upstream port not reported)`,
    );
    expect(m.metrics.pcie_replays).toBe(12);
    expect(m.details!.pcie_replays).toBe(`${P1}: 12 replays (Replays Since Reset 63 → 75)`);
    expect(m.components![1]!.metrics.pcie_replays).toBe(12);
  });

  test("a node without InfiniBand HCAs is said so, its GPUs still judged", () => {
    const m = pcieMeasurement(line(result([gpu(0, GPU0, link(5, 16), [])])));
    expect(m.metrics.pcie_link_degraded).toBe(0);
    expect(m.details!.pcie_link_degraded).toBe(
      `at their maximum (1 of 1 links): ${P0}: Gen5 x16 (max Gen5 x16, read while its copies ran); gpu01: no InfiniBand HCA (/sys/class/infiniband is empty or absent)`,
    );
  });

  test("links that could not be read leave the count unmeasured, each named with its reason, never 0", () => {
    const unreadNic = {
      device: "mlx5_1",
      pci_bus_id: "0000:2b:00.0",
      speed_gts: null,
      speed_max_gts: 32,
      width: 16,
      width_max: 16,
      unread: "/sys/class/infiniband/mlx5_1/device/current_link_speed says 'Unknown'",
    };
    const gen = { gen: null, gen_max: 5, width: 16, width_max: 16, replays_before: 1, replays_after: 1 };
    const m = pcieMeasurement(line(result([gpu(0, GPU0, link(5, 16), [nic("mlx5_0", "0000:1a:00.0"), unreadNic]), gpu(1, GPU1, gen, null)])), HCAS);
    expect(m.metrics.pcie_link_degraded).toBeNull();
    expect(m.unmeasured!.pcie_link_degraded).toBe(
      `${P1}: nvidia-smi -q gave no number for PCIe Generation Current; gpu01 mlx5_1 (0000:2b:00.0): /sys/class/infiniband/mlx5_1/device/current_link_speed says 'Unknown'`,
    );
    expect(m.components![1]!.unmeasured).toEqual({ pcie_gen: "nvidia-smi -q gave no number for PCIe Generation Current" });
    expect(m.components![3]!.unmeasured).toEqual({ pcie_speed_gts: "/sys/class/infiniband/mlx5_1/device/current_link_speed says 'Unknown'" });
    // the replays were read: they are judged
    expect(m.metrics.pcie_replays).toBe(0);
  });

  test("a local rank 0 that did not report the HCAs leaves the count unmeasured", () => {
    const m = pcieMeasurement(line(result([gpu(0, GPU0, link(5, 16), null)])));
    expect(m.unmeasured!.pcie_link_degraded).toBe("gpu01: local rank 0 did not report the InfiniBand HCAs' links");
  });

  test("a replay counter unread before or after the copies leaves pcie_replays unmeasured with the reason", () => {
    const l = { ...link(5, 16), replays_after: null, replays_unread: "after the copies: nvidia-smi -q -i GPU-8b1e… did not answer within 30 s" };
    const m = pcieMeasurement(line(result([gpu(0, GPU0, link(5, 16), NICS), gpu(1, GPU1, l, null)])));
    expect(m.metrics.pcie_replays).toBeNull();
    expect(m.unmeasured!.pcie_replays).toBe(`${P1}: after the copies: nvidia-smi -q -i GPU-8b1e… did not answer within 30 s`);
    expect(m.metrics.pcie_link_degraded).toBe(0);
  });

  test("CPU ranks: the copies labelled as host memory, the link metrics unmeasured with the reason", () => {
    const cpu = (rank: number) => ({
      rank,
      local_rank: rank,
      host: "vm",
      device: { type: "cpu", name: "AMD EPYC", index: null, uuid: null, pci_bus_id: null },
      size: SIZE,
      solo: phase(14.25),
      all: phase(14),
      link: { unread: "no NVIDIA GPU (nvidia-smi not found)" },
      nics: rank === 0 ? [] : null,
    });
    const m = pcieMeasurement(line(result([cpu(0), cpu(1)])));
    expect(m.details!.pcie_h2d_gbps_min).toBe(
      "device: cpu — host memory copy, no PCIe link crossed; vm rank 0 (CPU: AMD EPYC): best 14.3 GB/s, median 13.8 GB/s; vm rank 1 (CPU: AMD EPYC): best 14.3 GB/s, median 13.8 GB/s",
    );
    const why = "vm rank 0 (CPU: AMD EPYC): no NVIDIA GPU (nvidia-smi not found); vm rank 1 (CPU: AMD EPYC): no NVIDIA GPU (nvidia-smi not found)";
    expect([m.metrics.pcie_link_degraded, m.metrics.pcie_replays]).toEqual([null, null]);
    expect([m.unmeasured!.pcie_link_degraded, m.unmeasured!.pcie_replays]).toEqual([why, why]);
  });

  test("a copy one GPU could not make is unmeasured with its reason, never the others' minimum", () => {
    const solo = { ...phase(55), bidir: { unmeasured: "allocating 268435456-byte buffers failed: CUDA out of memory" } } as unknown as ReturnType<typeof phase>;
    const m = pcieMeasurement(line(result([gpu(0, GPU0, link(5, 16), NICS), gpu(1, GPU1, link(5, 16), null, solo)])));
    expect(m.metrics.pcie_bidir_gbps_min).toBeNull();
    expect(m.unmeasured!.pcie_bidir_gbps_min).toBe(`${P1}: allocating 268435456-byte buffers failed: CUDA out of memory`);
    expect(m.unmeasured!.pcie_bidir_all_gbps_min).toBeUndefined();
  });

  test("no result line, or one without ranks, is a parse error that says so", () => {
    expect(() => pcieMeasurement("[gpu01 rank 0] Traceback (most recent call last):\n")).toThrow("no GPUCHECK_RESULT line in rank 0's output: the pcie run did not finish");
    expect(() => pcieMeasurement(line(result([])))).toThrow("the pcie result lists no ranks");
  });
});

describe("HCA links: only the compute HCAs the test names, each against what its slot allows", () => {
  const links = (nics: object[], hcas?: string[]) => pcieMeasurement(line(result([gpu(0, GPU0, link(5, 16), nics)])), hcas);

  test("without pcie.hcas no HCA is judged: every link is recorded and the details say how to judge them", () => {
    const m = links([nic("mlx5_0", "0000:1a:00.0", 8)]);
    expect(m.metrics.pcie_link_degraded).toBe(0);
    expect(m.details!.pcie_link_degraded).toBe(
      `at their maximum (1 of 1 links): ${P0}: Gen5 x16 (max Gen5 x16, read while its copies ran); gpu01: HCA links recorded, not judged (name the compute HCAs in pcie.hcas to judge them): mlx5_0`,
    );
    expect(m.components![1]!.metrics).toEqual({ pcie_speed_gts: 32, pcie_speed_max_gts: 32, pcie_width: 8, pcie_width_max: 16 });
  });

  test("a storage or Ethernet HCA at x8 beside the named compute HCA is recorded, not judged", () => {
    const m = links([nic("mlx5_0", "0000:1a:00.0"), nic("mlx5_2", "0000:3c:00.0", 8)], ["mlx5_0"]);
    expect(m.metrics.pcie_link_degraded).toBe(0);
    expect(m.details!.pcie_link_degraded).toEndWith("gpu01: not compute HCAs of this test (pcie.hcas), recorded, not judged: mlx5_2");
  });

  test("a Gen5 HCA at 16 GT/s in a slot whose port allows 16 GT/s is healthy; behind a 32 GT/s port it is named", () => {
    const gen4Slot = { ...nic("mlx5_0", "0000:1a:00.0", 16, 16), upstream: port("0000:19:00.0", 16, 16) };
    const gen5Slot = { ...nic("mlx5_1", "0000:2b:00.0", 16, 16), upstream: port("0000:2a:00.0", 32, 16) };
    const m = links([gen4Slot, gen5Slot], HCAS);
    expect(m.metrics.pcie_link_degraded).toBe(1);
    expect(m.details!.pcie_link_degraded).toBe(
      "below their maximum: gpu01 mlx5_1 (0000:2b:00.0): 16 GT/s x16 (slot allows 32 GT/s x16: device max 32 GT/s x16, upstream port 0000:2a:00.0 max 32 GT/s x16); " +
        `at their maximum (2 of 3 links): ${P0}: Gen5 x16 (max Gen5 x16, read while its copies ran); ` +
        "gpu01 mlx5_0 (0000:1a:00.0): 16 GT/s x16 (slot allows 16 GT/s x16: device max 32 GT/s x16, upstream port 0000:19:00.0 max 16 GT/s x16)",
    );
  });

  test("an x16 HCA in an x8 port is healthy at x8, and named at x4", () => {
    const x8 = { ...nic("mlx5_0", "0000:1a:00.0", 8), upstream: port("0000:19:00.0", 32, 8) };
    const x4 = { ...nic("mlx5_1", "0000:2b:00.0", 4), upstream: port("0000:2a:00.0", 32, 8) };
    const m = links([x8, x4], HCAS);
    expect(m.metrics.pcie_link_degraded).toBe(1);
    expect(m.details!.pcie_link_degraded).toStartWith(
      "below their maximum: gpu01 mlx5_1 (0000:2b:00.0): 32 GT/s x4 (slot allows 32 GT/s x8: device max 32 GT/s x16, upstream port 0000:2a:00.0 max 32 GT/s x8); ",
    );
  });

  test("an HCA right under the host bridge is judged against its own maximum, said so", () => {
    const m = links(
      [{ ...nic("mlx5_0", "0000:1a:00.0"), upstream: { pci_bus_id: null, note: "no PCIe port above 0000:1a:00.0 (its parent pci0000:17 is the host bridge)" } }],
      ["mlx5_0"],
    );
    expect(m.details!.pcie_link_degraded).toEndWith(
      "gpu01 mlx5_0 (0000:1a:00.0): 32 GT/s x16 (max 32 GT/s x16; no PCIe port above 0000:1a:00.0 (its parent pci0000:17 is the host bridge))",
    );
  });

  test("a named HCA the node does not have, or whose port could not be read, leaves the count unmeasured, named", () => {
    const unread = { ...nic("mlx5_0", "0000:1a:00.0"), upstream: port("0000:19:00.0", null, null, "/sys/devices/pci0000:17/0000:19:00.0/max_link_speed: Permission denied") };
    const m = links([unread], ["mlx5_0", "mlx5_3"]);
    expect(m.metrics.pcie_link_degraded).toBeNull();
    expect(m.unmeasured!.pcie_link_degraded).toBe(
      "gpu01 mlx5_3: named in pcie.hcas but not under /sys/class/infiniband (found: mlx5_0); " +
        "gpu01 mlx5_0 (0000:1a:00.0): its upstream port 0000:19:00.0's capability could not be read: /sys/devices/pci0000:17/0000:19:00.0/max_link_speed: Permission denied",
    );
  });
});
