// NcclReport → the metrics the judge thresholds (names in lib/core/metrics.ts).
//
// Per size, busbw and algbw are the better of out-of-place and in-place, and time_us the shorter:
// the two placements are the same collective on the same bytes, nccl-tests prints both and
// averages both into "Avg bus bandwidth", and which one a given NCCL version runs faster is not
// a property of the fabric. When several rows share a size (-d all, -o all, -r all, -N cycles)
// the best of them is taken. The scalar busbw/algbw/time_us are those at the largest size.
import type { Measurement } from "../core/types.ts";
import type { NcclPlacement, NcclReport, NcclRow } from "./nccl-report.ts";

type Pick = (row: NcclRow) => number | null;

const best =
  (get: (p: NcclPlacement) => number | null, better: (a: number, b: number) => number): Pick =>
  (row) => {
    const a = row.outOfPlace ? get(row.outOfPlace) : null;
    const b = row.inPlace ? get(row.inPlace) : null;
    return a === null ? b : b === null ? a : better(a, b);
  };

const PER_SIZE: Record<string, [Pick, (a: number, b: number) => number]> = {
  busbw: [best((p) => p.busbwGBs, Math.max), Math.max],
  algbw: [best((p) => p.algbwGBs, Math.max), Math.max],
  time_us: [best((p) => p.timeUs, Math.min), Math.min],
};

export function ncclMeasurement(report: NcclReport): Measurement {
  const bySize: Record<string, Array<[number, number | null]>> = {};
  for (const [metric, [pick, better]] of Object.entries(PER_SIZE)) bySize[metric] = perSize(report.rows, pick, better);
  const atLargest = (metric: string) => bySize[metric]!.at(-1)?.[1] ?? null;
  return {
    metrics: {
      busbw: atLargest("busbw"),
      algbw: atLargest("algbw"),
      time_us: atLargest("time_us"),
      busbw_peak: report.maxBusbwGBs,
      busbw_avg: report.avgBusbwGBs,
      wrong: wrongTotal(report.rows),
      out_of_bounds: report.outOfBounds,
    },
    bySize,
    raw: report,
  };
}

/** [size, value] sorted by size, one entry per size */
function perSize(rows: NcclRow[], pick: Pick, better: (a: number, b: number) => number): Array<[number, number | null]> {
  const bySize = new Map<number, number | null>();
  for (const row of rows) {
    const v = pick(row);
    const seen = bySize.get(row.size);
    bySize.set(row.size, seen == null ? v : v === null ? seen : better(seen, v));
  }
  return [...bySize.entries()].sort((a, b) => a[0] - b[0]);
}

/** #wrong summed over rows and placements; null when every check was N/A (-c 0) or there are no rows */
function wrongTotal(rows: NcclRow[]): number | null {
  let total: number | null = null;
  for (const row of rows) {
    for (const p of [row.outOfPlace, row.inPlace]) {
      if (p?.wrong != null) total = (total ?? 0) + p.wrong;
    }
  }
  return total;
}
