// lib/kinds/nvlink/parse.ts on its own: the nvlink command's GPUCHECK_RESULT → every ordered pair of a
// node's GPUs as a link named by both ends, the worst and median pair, the worst link all at once,
// and the reason whenever a link is missing. The GPU results are written here in the workload's shape
// (synthetic: no GPU ran them); UUIDs and bus ids are GPUs 0-2 of the H100 capture
// /work/shared/reference/node-samples/nvidia-smi-q-h100-8gpu-565.57.01.txt. The judging of a slow
// link by the outlier rule runs through lib/assess/components.ts, as a suite's threshold would.
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { componentChecks } from "../../lib/assess/components.ts";
import { nvlinkMeasurement } from "../../lib/kinds/nvlink/parse.ts";
import type { Expectation } from "../../lib/core/types.ts";

const SIZE = 256 * 1024 ** 2;
const IDS = [
  ["GPU-b42dd28e-ffdd-8720-1df0-98bd8cdc05b1", "00000000:18:00.0"],
  ["GPU-7c3cadbd-17e5-0913-f69b-c618122ea0cd", "00000000:2A:00.0"],
  ["GPU-2d50cdf6-dd67-9f2e-855e-0d4d6d395a2f", "00000000:3A:00.0"],
] as const;
const END = IDS.map(([uuid, bus], i) => `GPU ${i} (${uuid}, ${bus})`);
const gpu = (rank: number, host = "gpu01") => ({
  rank,
  local_rank: rank,
  host,
  device: { type: "cuda", name: "NVIDIA H100 80GB HBM3", cuda_index: rank, capability: "9.0", index: rank, uuid: IDS[rank]![0], pci_bus_id: IDS[rank]![1], unnamed: null },
});
const timed = (src: number, dst: number, gbps: number, shift?: number) => ({
  ...(shift !== undefined && { shift }),
  src,
  dst,
  gbps,
  best_gbps: gbps + 2,
  median_gbps: gbps + 1,
  bytes: SIZE,
  calls: [gbps, gbps + 2],
});
const EVERY = [
  [0, 1],
  [0, 2],
  [1, 0],
  [1, 2],
  [2, 0],
  [2, 1],
] as const;
/** every pair at `gbps` alone and `gbps - 20` at once, but those named in `slow` */
function result(gbps = 370, slow: Record<string, number> = {}, drop = "") {
  const rate = (s: number, d: number) => slow[`${s}>${d}`] ?? gbps;
  return {
    world_size: 3,
    backend: "nccl",
    torch: "2.5.1",
    size: SIZE,
    iters: 20,
    warmup: 3,
    ranks: [gpu(0), gpu(1), gpu(2)],
    pairs: EVERY.filter(([s, d]) => `${s}>${d}` !== drop).map(([s, d]) => timed(s, d, rate(s, d))),
    all: EVERY.map(([s, d]) => timed(s, d, rate(s, d) - 20, (d - s + 3) % 3)),
    // the copy engines of local rank 0: 380 GB/s a pair alone, 300 all at once
    ce: [{ host: "gpu01", leader: 0, pairs: EVERY.map(([s, d]) => timed(s, d, 380)), all: EVERY.map(([s, d]) => timed(s, d, 300)) }] as object[],
  };
}
// the result helper's host has no nvbandwidth run (a workload from before it): those four are null, with that reason
const NVBW = ["nvlink_nvbw_read_gbps_min", "nvlink_nvbw_write_gbps_min", "nvlink_nvbw_bidir_read_gbps_min", "nvlink_nvbw_bidir_write_gbps_min"];
const NO_NVBW = Object.fromEntries(NVBW.map((k) => [k, "gpu01: no nvbandwidth run in the result (written by a workload without it)"]));
const CE = { nvlink_ce_gbps_min: 380, nvlink_ce_gbps_median: 380, nvlink_ce_all_gbps_min: 300, ...Object.fromEntries(NVBW.map((k) => [k, null])) };
const line = (o: unknown) => `[gpu01 rank 0] GPUCHECK_RESULT ${JSON.stringify(o)}\n`;

describe("nvlinkMeasurement", () => {
  test("every ordered pair is a link part named by both GPUs; the slowest pair leads the details", () => {
    const m = nvlinkMeasurement(line(result(370, { "2>0": 185 })));
    expect(m.metrics).toEqual({ nvlink_pair_gbps_min: 185, nvlink_all_gbps_min: 165, nvlink_pair_gbps_median: 370, ...CE });
    expect(m.unmeasured).toEqual(NO_NVBW);
    expect(m.components!.map((c) => [c.part, c.metrics] as unknown[])).toEqual(
      EVERY.map(([s, d]) => [
        { type: "link", host: "gpu01", rank: s, name: `${END[s]}→${END[d]}` },
        { nvlink_link_gbps: s === 2 && d === 0 ? 185 : 370, nvlink_link_all_gbps: s === 2 && d === 0 ? 165 : 350, nvlink_ce_gbps: 380, nvlink_ce_all_gbps: 300 },
      ]),
    );
    const prefix = "NCCL send/recv between GPUs of one node (NVLink/NVSwitch where NCCL uses P2P); ";
    expect(m.details!.nvlink_pair_gbps_min).toStartWith(
      `${prefix}gpu01 link ${END[2]}→${END[0]}: 185.0 GB/s (best 187.0 GB/s, median 186.0 GB/s); gpu01 link ${END[0]}→${END[1]}: 370.0 GB/s`,
    );
    expect(m.details!.nvlink_all_gbps_min).toStartWith(`${prefix}gpu01 link ${END[2]}→${END[0]}: 165.0 GB/s (shift 1, best 167.0 GB/s, median 166.0 GB/s); `);
    expect(m.details!.nvlink_pair_gbps_median).toBe(`${prefix}the median of 6 ordered pairs, each timed alone`);
  });

  test("the outlier rule names the slow link by both GPUs against the node's other five", () => {
    const m = nvlinkMeasurement(line(result(370, { "2>0": 185 })));
    const e: Expectation = {
      metric: "nvlink_link_gbps",
      text: "nvlink_link_gbps outlier below 0.93",
      unit: "GB/s",
      outlier: { side: "below", ratio: 0.93, over: "unit" },
      perComponent: true,
    };
    const failed = componentChecks(e, m, [m]).filter((c) => !c.ok);
    expect(failed.map((c) => c.message)).toEqual([
      `gpu01 link ${END[2]}→${END[0]}: nvlink_link_gbps 185 GB/s is 0.500 × the median 370 GB/s of 5 link parts (the others of its unit) (< 0.93 expected)`,
    ]);
  });

  test("a pair missing from the result is unmeasured on its link and in every test metric it feeds, never left out", () => {
    const m = nvlinkMeasurement(line(result(370, {}, "1>2")));
    const why = `gpu01 link ${END[1]}→${END[2]}: rank 1 → rank 2 missing from the result's "pairs"`;
    expect(m.metrics).toEqual({ nvlink_pair_gbps_min: null, nvlink_all_gbps_min: 350, nvlink_pair_gbps_median: null, ...CE });
    expect(m.unmeasured).toEqual({ nvlink_pair_gbps_min: why, nvlink_pair_gbps_median: why, ...NO_NVBW });
    const link = m.components!.find((c) => c.part.name === `${END[1]}→${END[2]}`)!;
    expect(link.metrics).toEqual({ nvlink_link_gbps: null, nvlink_link_all_gbps: 350, nvlink_ce_gbps: 380, nvlink_ce_all_gbps: 300 });
    expect(link.unmeasured).toEqual({ nvlink_link_gbps: `rank 1 → rank 2 missing from the result's "pairs"` });
  });

  test("ranks on different hosts are no link: with one GPU per host every metric is unmeasured with why", () => {
    const r = { ...result(), world_size: 2, ranks: [gpu(0, "gpu01"), gpu(1, "gpu02")], pairs: [], all: [] };
    const m = nvlinkMeasurement(line(r));
    const why = "no two ranks share a host (rank 0 on gpu01, rank 1 on gpu02): a link joins two GPUs of one node";
    const every = ["nvlink_pair_gbps_min", "nvlink_pair_gbps_median", "nvlink_all_gbps_min", "nvlink_ce_gbps_min", "nvlink_ce_gbps_median", "nvlink_ce_all_gbps_min", ...NVBW];
    expect(m.metrics).toEqual(Object.fromEntries(every.map((k) => [k, null])));
    expect(m.unmeasured).toEqual(Object.fromEntries(every.map((k) => [k, why])));
    expect(m.components).toEqual([]);
  });

  test("copy engines: each link's copies alone and at once, a pair without peer access null with why", () => {
    const r = result();
    const refused = { src: 1, dst: 2, why: "GPU 1 cannot reach GPU 2 as a peer (torch.cuda.can_device_access_peer is False): a copy would be staged through host memory" };
    r.ce = [
      {
        host: "gpu01",
        leader: 0,
        pairs: EVERY.map(([s, d]) => (s === 1 && d === 2 ? refused : timed(s, d, s === 0 && d === 2 ? 190 : 380))),
        all: EVERY.map(([s, d]) => (s === 1 && d === 2 ? refused : timed(s, d, 300))),
      },
    ];
    const m = nvlinkMeasurement(line(r));
    const link = m.components!.find((c) => c.part.name === `${END[1]}→${END[2]}`)!;
    expect([link.metrics.nvlink_ce_gbps, link.unmeasured!.nvlink_ce_gbps]).toEqual([null, refused.why]);
    expect(m.metrics.nvlink_ce_gbps_min).toBeNull();
    expect(m.unmeasured!.nvlink_ce_gbps_min).toBe(`gpu01 link ${END[1]}→${END[2]}: ${refused.why}`);
    const ok = nvlinkMeasurement(line({ ...r, ce: [{ ...r.ce[0], pairs: EVERY.map(([s, d]) => timed(s, d, s === 0 && d === 2 ? 190 : 380)) }] }));
    expect(ok.metrics.nvlink_ce_gbps_min).toBe(190);
    expect(ok.details!.nvlink_ce_gbps_min).toStartWith(
      `copy engines: dst.copy_(src) from local rank 0 between GPUs of one node (peer-to-peer cudaMemcpyAsync over NVLink/NVSwitch, no NCCL); gpu01 link ${END[0]}→${END[2]}: 190.0 GB/s (best 192.0 GB/s, median 191.0 GB/s); `,
    );
  });

  test("copy engines skipped (CPU ranks), or a result from before the phase: null with the reason, said once", () => {
    const why = "device: cpu — no GPU, so no copy engine: the copy-engine phase did not run";
    const m = nvlinkMeasurement(line({ ...result(), ce: [{ host: "gpu01", leader: 0, why }] }));
    for (const k of ["nvlink_ce_gbps_min", "nvlink_ce_gbps_median", "nvlink_ce_all_gbps_min"]) {
      expect(m.metrics[k]).toBeNull();
      expect(m.unmeasured![k]).toBe(`gpu01: ${why}`);
    }
    expect(m.components![0]!.unmeasured).toEqual({ nvlink_ce_gbps: why, nvlink_ce_all_gbps: why });
    const { ce: _ce, ...old } = result();
    expect(nvlinkMeasurement(line(old)).components![0]!.unmeasured!.nvlink_ce_gbps).toBe("the result has no copy-engine phase (written by a workload without it)");
  });

  test("nvbandwidth's matrices on the node: each pair its own part, the lowest per testcase; a testcase it did not print, or no nvbandwidth, is null with why", () => {
    // the README capture (test/fixtures/nvbandwidth/README.md): the write testcase only
    const output = readFileSync(join(import.meta.dir, "../fixtures/nvbandwidth/readme-8gpu-write-ce.txt"), "utf8");
    const r = result();
    const m = nvlinkMeasurement(line({ ...r, ce: [{ ...r.ce[0], nvbandwidth: { command: "nvbandwidth -t …", rc: 0, output } }] }));
    expect(m.metrics.nvlink_nvbw_write_gbps_min).toBe(274.89);
    expect(m.details!.nvlink_nvbw_write_gbps_min).toStartWith("nvbandwidth device_to_device_memcpy_write_ce, each ordered pair alone: gpu01 GPU 0→GPU 6 274.89 GB/s; ");
    expect(m.components!.filter((c) => c.source === "nvbandwidth")).toHaveLength(56);
    expect(m.components!.find((c) => c.part.name === "GPU 0→GPU 6")).toEqual({
      part: { type: "link", host: "gpu01", name: "GPU 0→GPU 6" },
      metrics: { nvlink_nvbw_write_gbps: 274.89 },
      source: "nvbandwidth",
    });
    expect(m.unmeasured!.nvlink_nvbw_read_gbps_min).toBe("gpu01: nvbandwidth printed no device_to_device_memcpy_read_ce matrix (exit code 0)");
    const why = "nvbandwidth not found on PATH on gpu01: build it from github.com/NVIDIA/nvbandwidth (the method of Azure's check_gpu_bw floor) and put it on PATH";
    const none = nvlinkMeasurement(line({ ...r, ce: [{ ...r.ce[0], nvbandwidth: { why } }] }));
    expect(NVBW.map((k) => none.unmeasured![k])).toEqual(NVBW.map(() => `gpu01: ${why}`));
  });

  test("output without a result, or a result without ranks, is a parse error saying so", () => {
    expect(() => nvlinkMeasurement("[gpu01 rank 0] NCCL WARN Call to ibv_reg_mr failed\n")).toThrow("no GPUCHECK_RESULT line in rank 0's output: the nvlink run did not finish");
    expect(() => nvlinkMeasurement(line({ ...result(), ranks: [] }))).toThrow("the nvlink result lists no ranks");
  });
});
