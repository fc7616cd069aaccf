// lib/parsers/nvlink.ts on its own: the nvlink command's GPUCHECK_RESULT → every ordered pair of a
// node's GPUs as a link named by both ends, the worst and median pair, the worst link all at once,
// and the reason whenever a link is missing. The GPU results are written here in the workload's shape
// (synthetic: no GPU ran them); UUIDs and bus ids are GPUs 0-2 of the H100 capture
// /work/shared/reference/node-samples/nvidia-smi-q-h100-8gpu-565.57.01.txt. The judging of a slow
// link by the outlier rule runs through lib/assess/components.ts, as a suite's threshold would.
import { describe, expect, test } from "bun:test";
import { componentChecks } from "../../lib/assess/components.ts";
import { nvlinkMeasurement } from "../../lib/parsers/nvlink.ts";
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
  };
}
const line = (o: unknown) => `[gpu01 rank 0] GPUCHECK_RESULT ${JSON.stringify(o)}\n`;

describe("nvlinkMeasurement", () => {
  test("every ordered pair is a link part named by both GPUs; the slowest pair leads the details", () => {
    const m = nvlinkMeasurement(line(result(370, { "2>0": 185 })));
    expect(m.metrics).toEqual({ nvlink_pair_gbps_min: 185, nvlink_all_gbps_min: 165, nvlink_pair_gbps_median: 370 });
    expect(m.unmeasured).toEqual({});
    expect(m.components!.map((c) => [c.part, c.metrics] as unknown[])).toEqual(
      EVERY.map(([s, d]) => [
        { type: "link", host: "gpu01", rank: s, name: `${END[s]}→${END[d]}` },
        { nvlink_link_gbps: s === 2 && d === 0 ? 185 : 370, nvlink_link_all_gbps: s === 2 && d === 0 ? 165 : 350 },
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
    expect(m.metrics).toEqual({ nvlink_pair_gbps_min: null, nvlink_all_gbps_min: 350, nvlink_pair_gbps_median: null });
    expect(m.unmeasured).toEqual({ nvlink_pair_gbps_min: why, nvlink_pair_gbps_median: why });
    const link = m.components!.find((c) => c.part.name === `${END[1]}→${END[2]}`)!;
    expect(link.metrics).toEqual({ nvlink_link_gbps: null, nvlink_link_all_gbps: 350 });
    expect(link.unmeasured).toEqual({ nvlink_link_gbps: `rank 1 → rank 2 missing from the result's "pairs"` });
  });

  test("ranks on different hosts are no link: with one GPU per host every metric is unmeasured with why", () => {
    const r = { ...result(), world_size: 2, ranks: [gpu(0, "gpu01"), gpu(1, "gpu02")], pairs: [], all: [] };
    const m = nvlinkMeasurement(line(r));
    const why = "no two ranks share a host (rank 0 on gpu01, rank 1 on gpu02): a link joins two GPUs of one node";
    expect(m.metrics).toEqual({ nvlink_pair_gbps_min: null, nvlink_pair_gbps_median: null, nvlink_all_gbps_min: null });
    expect(m.unmeasured).toEqual({ nvlink_pair_gbps_min: why, nvlink_pair_gbps_median: why, nvlink_all_gbps_min: why });
    expect(m.components).toEqual([]);
  });

  test("output without a result, or a result without ranks, is a parse error saying so", () => {
    expect(() => nvlinkMeasurement("[gpu01 rank 0] NCCL WARN Call to ibv_reg_mr failed\n")).toThrow("no GPUCHECK_RESULT line in rank 0's output: the nvlink run did not finish");
    expect(() => nvlinkMeasurement(line({ ...result(), ranks: [] }))).toThrow("the nvlink result lists no ranks");
  });
});
