// A collective unit's rank logs → the transport account its measurement carries, or why there is none.
// The workload forwards NCCL's INFO lines as `GPUCHECK_NCCL_INFO <line>` and closes each rank's capture
// with a `GPUCHECK_NCCL {json}` record (backend, lines, capped, or the reason nothing was captured);
// raw NCCL INFO lines (a suite that sent NCCL_DEBUG=INFO to the console) are read the same way.
import type { ResultsFile } from "../core/types.ts";
import { type TransportSummary, parseNcclInfo } from "./nccl-info.ts";
import { taggedLines } from "./protocol.ts";

export interface TransportReading {
  transport?: TransportSummary;
  /** why the transport is not known: set whenever no connection line was read */
  unmeasured?: string;
}

export function transportFromLogs(texts: string[]): TransportReading {
  const records = texts.flatMap((t) => taggedLines(t, "NCCL"));
  const parsed = parseNcclInfo(texts);
  const capped = records.filter((r) => r.capped === true);
  const cutNote = capped.length ? ` (the capture of ${capped.length} rank(s) was cut at ${String(capped[0].emitted)} lines)` : "";
  if (!parsed.summary) return { unmeasured: noCapture(records) };
  const s = parsed.summary;
  if (Object.keys(s.transports).length === 0) {
    return { transport: s, unmeasured: `NCCL printed ${s.infoLines} INFO line(s) but no connection ("via …") line: a one-rank communicator, or the lines were cut${cutNote}` };
  }
  return { transport: s };
}

/** The workload's own words on why nothing was captured, else what the logs lack. */
function noCapture(records: Record<string, unknown>[]): string {
  const reasons = [...new Set(records.map((r) => r.reason).filter((r): r is string => typeof r === "string" && r !== ""))];
  if (reasons.length) return reasons.join("; ");
  if (records.length) return "NCCL printed no INFO line (its debug output was captured but empty)";
  return "no NCCL INFO lines in the rank logs: the workload did not capture NCCL's debug output (impl or version without capture) and NCCL_DEBUG was not INFO";
}

/**
 * `gpucheck judge` on a results.json written before gpucheck kept the transport: the collective
 * units that have a measurement but no account get one from their saved rank logs. `readLog` gets a
 * path as results.json lists it and returns the text, or undefined when it cannot be read; a unit
 * none of whose logs can be read is left as it was.
 */
export function addTransportFromLogs(results: ResultsFile, readLog: (path: string) => string | undefined): ResultsFile {
  const tests = results.tests.map((t) => {
    if (t.kind !== "collective") return t;
    const units = t.units.map((u) => {
      const m = u.measurement;
      if (!m || m.transport || m.unmeasured?.transport !== undefined) return u;
      const texts = u.logs.map(readLog).filter((x): x is string => x !== undefined);
      if (texts.length === 0) return u;
      const r = transportFromLogs(texts);
      return { ...u, measurement: { ...m, ...(r.transport && { transport: r.transport }), ...(r.unmeasured && { unmeasured: { ...m.unmeasured, transport: r.unmeasured } }) } };
    });
    return { ...t, units };
  });
  return { ...results, tests };
}
