// A unit's output → Measurement: the test kind's own metrics (lib/kinds/), then the telemetry's.
// Pure; ParseError when the output is unusable.
import { KINDS } from "../kinds/mod.ts";
import type { AnyKind } from "../core/kind.ts";
import { telemetryMetrics } from "../parsers/telemetry.ts";
import type { Kind, Measurement, TelemetrySummary } from "../core/types.ts";

/**
 * `logs`: every rank's log, where NCCL's account of the transport is (rank 0's output when absent).
 * `params`: the test's resolved block (an inventory's hcas, link count and pins).
 */
export function measure(kind: Kind, output: string, telemetry?: TelemetrySummary, logs?: string[], params?: unknown): Measurement {
  const m = (KINDS[kind] as AnyKind).measure(output, { logs, params });
  if (telemetry) {
    // the test's own metrics win: an inventory's xid_events is the whole kernel log, not the test's
    const t = telemetryMetrics(telemetry);
    const ownKeys = new Set(Object.keys(m.metrics));
    const own = (k: string) => ownKeys.has(k);
    const drop = (r: Record<string, string>) => Object.fromEntries(Object.entries(r).filter(([k]) => !own(k)));
    // no sample at all: the reasons only, so a check on a telemetry metric says why it has no value
    if (telemetry.samples > 0) m.metrics = { ...t.metrics, ...m.metrics };
    const unmeasured = { ...drop(t.unmeasured), ...m.unmeasured };
    const details = { ...drop(t.details), ...m.details };
    if (Object.keys(unmeasured).length) m.unmeasured = unmeasured;
    if (Object.keys(details).length) m.details = details;
  }
  return m;
}

/**
 * After every unit of a test is measured: the kind's findings across units (inventory: settings
 * that differ between nodes). Mutates the measurements, as addFleetConfigFindings did.
 */
export function measureFleet(kind: Kind, measurements: Array<Measurement | null>, params: unknown): void {
  (KINDS[kind] as AnyKind).fleet?.(measurements, params);
}

/** `gpucheck judge`: saved measurements recounted against the judging suite's block, where the kind can. */
export function remeasure(kind: Kind, measurements: Array<Measurement | null>, params: unknown): Array<Measurement | null> {
  const k: AnyKind = KINDS[kind];
  return k.recount ? k.recount(measurements, params) : measurements;
}
