// A unit's output → Measurement, by test kind. Pure; ParseError when the output is unusable.
import { ParseError } from "./errors.ts";
import { inventoryMeasurement } from "./parsers/inventory.ts";
import { ncclMeasurement, parseNccl } from "./parsers/nccl.ts";
import { transportFromLogs } from "./parsers/nccl-transport.ts";
import { telemetryMetrics } from "./parsers/telemetry.ts";
import { trainMeasurement } from "./parsers/train.ts";
import type { InventoryParams, Kind, Measurement, TelemetrySummary } from "./types.ts";

/** `logs`: every rank's log, where NCCL's account of the transport is (rank 0's output when absent). */
export function measure(kind: Kind, output: string, telemetry?: TelemetrySummary, logs?: string[], inventory?: InventoryParams): Measurement {
  const m = kindMeasurement(kind, output, inventory);
  if (kind === "collective") {
    const t = transportFromLogs(logs?.some((l) => l !== "") ? logs : [output]);
    if (t.transport) m.transport = t.transport;
    if (t.unmeasured) m.unmeasured = { ...m.unmeasured, transport: t.unmeasured };
  }
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

function kindMeasurement(kind: Kind, output: string, inventory?: InventoryParams): Measurement {
  switch (kind) {
    case "collective": {
      const report = parseNccl(output);
      if (report.rows.length === 0) {
        throw new ParseError(report.failure ? `no results: ${report.failure}` : "no nccl-tests result rows in the output");
      }
      const m = ncclMeasurement(report);
      // the judge never passes an nccl-tests log that stopped before its footer
      m.metrics.complete = report.complete ? 1 : 0;
      return m;
    }
    case "train":
      return trainMeasurement(output);
    case "inventory":
      return inventoryMeasurement(output, inventory);
  }
}
