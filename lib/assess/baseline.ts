// The earlier run a --baseline names, as the judge reads it.
import type { Measurement, ResultsFile } from "../core/types.ts";

/**
 * The same test (and node, in per-node mode) in an earlier run: undefined without a baseline, null
 * when the baseline has no measurement for it (the judge says which of the two).
 */
export function baselineMeasurement(baseline: ResultsFile | undefined, test: string, unit: string): Measurement | null | undefined {
  if (!baseline) return undefined;
  const t = baseline.tests.find((x) => x.name === test);
  const u = t?.units.find((x) => x.unit === unit) ?? (t?.units.length === 1 ? t.units[0] : undefined);
  return u?.measurement ?? null;
}
