// What `gpucheck parse nccl` prints and what lib/assess/measure.ts judges: one nccl-tests run, read from its
// text output (any era) or from its `-J` JSON file. The field names are part of the CLI's contract.

/** One placement (out-of-place or in-place) of a result row. */
export interface NcclPlacement {
  /** µs per operation ("time" or, with -C 1, "cputime"); null when nccl-tests printed nan/inf */
  timeUs: number | null;
  /** decimal GB/s, as printed */
  algbwGBs: number | null;
  busbwGBs: number | null;
  /**
   * wrong elements (#wrong, summed over ranks); null when the check was off (N/A: -c 0, alltoall
   * in-place). Layouts up to v2.11 printed the max |delta| instead: that becomes 0 when within
   * nccl-tests' own tolerance for the type and 1 when not (the exact count was never printed).
   */
  wrong: number | null;
}

export interface NcclRow {
  /** bytes (for all_gather, reduce_scatter, alltoall: the total over ranks, as nccl-tests prints it) */
  size: number;
  /** elements per call */
  count: number;
  type: string;
  /** sum, prod, max, min, avg, mulsum or none; null in old layouts that had no redop column */
  redop: string | null;
  /** -1 for non-rooted collectives; null in old layouts that had no root column */
  root: number | null;
  /** null only when the layout has no such placement (v1 broadcast, trace replay) */
  outOfPlace: NcclPlacement | null;
  inPlace: NcclPlacement | null;
}

export interface NcclReport {
  /** "all_reduce" from "# Collective test starting: all_reduce_perf" or the JSON's argv[0]; null when the log does not say */
  collective: string | null;
  /** number of "Rank N" device lines; null when there are none */
  ranks: number | null;
  rows: NcclRow[];
  /** highest busbw over all rows and both placements; null without rows */
  maxBusbwGBs: number | null;
  /** the footer's "Avg bus bandwidth" (mean over all rows and placements); null when the footer is missing */
  avgBusbwGBs: number | null;
  /** the footer's "Out of bounds values" (checks with ≥1 wrong element); null when missing */
  outOfBounds: number | null;
  /** the footer was reached and no failure was printed */
  complete: boolean;
  /** the first failure nccl-tests printed, without its host prefix, e.g. "Test NCCL failure common.cu:392 'unhandled system error / '" */
  failure: string | null;
}

/** Highest busbw over all rows and both placements; null without any. */
export function maxBusbw(rows: NcclRow[]): number | null {
  let max: number | null = null;
  for (const r of rows) {
    for (const v of [r.outOfPlace?.busbwGBs, r.inPlace?.busbwGBs]) {
      if (v != null && (max === null || v > max)) max = v;
    }
  }
  return max;
}

export function emptyReport(): NcclReport {
  return { collective: null, ranks: null, rows: [], maxBusbwGBs: null, avgBusbwGBs: null, outOfBounds: null, complete: false, failure: null };
}
