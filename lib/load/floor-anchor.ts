// Where docs/thresholds.md explains a built-in floor (a `min:` threshold): its source and method,
// the healthy figure and margin, and what each single-part fault reads against it. One anchor per
// floor, by the suite file that wrote it, its test and metric; `gpucheck show` prints the pointer
// and a unit test fails when a built-in floor has no row (test/docs/floor-rows.test.ts).

export const THRESHOLDS_DOC = "docs/thresholds.md";

/** "floor-h100-8x-nvlink-ring-allreduce-busbw" */
export function floorAnchor(suite: string, test: string, metric: string): string {
  return `floor-${suite}-${test}-${metric}`.toLowerCase().replace(/[^a-z0-9]+/g, "-");
}

/** The built-in suite a file is ("builtin:h100-8x.yaml" → "h100-8x"), or undefined for a user's file. */
export function builtinSuiteOf(display: string): string | undefined {
  return /^builtin:(.+)\.yaml$/.exec(display)?.[1];
}
