// NcclReport → the metrics the judge thresholds.
import { expect, test } from "bun:test";
import { ncclMeasurement, parseNccl, type NcclReport, type NcclRow } from "../../lib/parsers/nccl.ts";
import { ncclFixtures } from "./nccl-fixtures.ts";

const fixture = (name: string) => ncclFixtures().find((f) => f.name === name)!;
const p = (timeUs: number | null, busbwGBs: number | null, wrong: number | null = 0, algbwGBs = busbwGBs) => ({ timeUs, algbwGBs, busbwGBs, wrong });
const row = (size: number, oop: ReturnType<typeof p> | null, ip: ReturnType<typeof p> | null, type = "float"): NcclRow => ({
  size,
  count: size / 4,
  type,
  redop: "sum",
  root: -1,
  outOfPlace: oop,
  inPlace: ip,
});
const report = (rows: NcclRow[], extra: Partial<NcclReport> = {}): NcclReport => ({
  collective: "all_reduce",
  ranks: 8,
  rows,
  maxBusbwGBs: null,
  avgBusbwGBs: 10,
  outOfBounds: 0,
  complete: true,
  failure: null,
  ...extra,
});

test("a published log: busbw at the largest size is the better placement, peak and avg as reported", () => {
  const m = ncclMeasurement(parseNccl(fixture("h100-p5-8rank-allreduce-mpirun-tag-output.txt").text));
  expect(m.metrics).toEqual({ busbw: 483.35, algbw: 276.2, time_us: 62200, busbw_peak: 483.35, busbw_avg: 156.742, wrong: 0, out_of_bounds: 0 });
  expect(m.bySize?.busbw).toHaveLength(32);
  expect(m.bySize?.busbw?.[0]).toEqual([8, 0]);
  expect(m.bySize?.busbw?.at(-1)).toEqual([17179869184, 483.35]);
  expect(m.bySize?.time_us?.at(-1)).toEqual([17179869184, 62200]);
  expect(m.raw).toEqual(fixture("h100-p5-8rank-allreduce-mpirun-tag-output.txt").expected);
});

test("#wrong is summed over rows and placements", () => {
  const m = ncclMeasurement(parseNccl(fixture("gh200-16rank-allreduce-wrong-nonzero-v2.17.9.txt").text));
  expect(m.metrics.wrong).toBe(18134 + 9609 + 96817 + 124342 + 763876 + 530181 + 404221 + 103664 + 951005 + 820604 + 113492);
  expect([m.metrics.busbw_avg, m.metrics.out_of_bounds]).toEqual([null, null]);
});

test("-c 0: wrong is null, not 0", () => {
  expect(ncclMeasurement(parseNccl(fixture("check-off-na-all-gather-v2.19.6.txt").text)).metrics.wrong).toBeNull();
});

test("rows sharing a size (-d all, -o all, -r all): one entry per size, the best of them", () => {
  const m = ncclMeasurement(report([row(1024, p(20, 1), p(19, 1.1)), row(1024, p(18, 1.3), p(21, 0.9), "half"), row(4096, p(40, 3), null)]));
  expect(m.bySize).toEqual({
    busbw: [
      [1024, 1.3],
      [4096, 3],
    ],
    algbw: [
      [1024, 1.3],
      [4096, 3],
    ],
    time_us: [
      [1024, 18],
      [4096, 40],
    ],
  });
  expect([m.metrics.busbw, m.metrics.time_us]).toEqual([3, 40]);
});

test("sizes come out sorted, and a placement without a value yields to the other", () => {
  const m = ncclMeasurement(report([row(4096, p(null, null), p(30, 2)), row(8, null, p(5, 0.01))]));
  expect(m.bySize?.busbw).toEqual([
    [8, 0.01],
    [4096, 2],
  ]);
  expect(m.bySize?.time_us).toEqual([
    [8, 5],
    [4096, 30],
  ]);
});

test("no rows: every metric null", () => {
  const m = ncclMeasurement(report([], { avgBusbwGBs: null, outOfBounds: null, complete: false, failure: "Test NCCL failure common.cu:222 'x'" }));
  expect(m.metrics).toEqual({ busbw: null, algbw: null, time_us: null, busbw_peak: null, busbw_avg: null, wrong: null, out_of_bounds: null });
  expect(m.bySize).toEqual({ busbw: [], algbw: [], time_us: [] });
});
