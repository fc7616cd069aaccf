// Wall times measured on real hardware, each with the BENCHMARKS.md section it comes from. Only whole
// suites have been timed so far (one H100 lent per session), so a row is a suite's total, not a test's.
export interface MeasuredTime {
  suite: string;
  /** how many tests the timed run had: a plan of fewer (--only) is estimated instead */
  tests: number;
  /** the longest of the measured runs, ms */
  wallMs: number;
  source: string;
}

export const MEASURED_TIMES: MeasuredTime[] = [
  {
    suite: "gpu-1x",
    tests: 8,
    wallMs: 234_000,
    source: 'BENCHMARKS.md "GPU figures": the whole suite with preflight on one H100 80GB HBM3, 3 min 54 s and 3 min 46 s',
  },
];

export function measuredTime(suite: string, tests: number): MeasuredTime | undefined {
  return MEASURED_TIMES.find((m) => m.suite === suite && m.tests === tests);
}
