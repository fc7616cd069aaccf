// A collective unit's rank logs → the transport account its measurement carries, or why there is none.
// The workload forwards NCCL's INFO lines as `GPUCHECK_NCCL_INFO <line>` and closes each rank's capture
// with a `GPUCHECK_NCCL {json}` record (backend, lines, capped, or the reason nothing was captured);
// raw NCCL INFO lines (a suite that sent NCCL_DEBUG=INFO to the console) are read the same way.
import type { ResultsFile } from "../core/types.ts";
import { type TransportSummary, connectionCounts, parseNcclInfo, usedTransport } from "./nccl-info.ts";
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
  if (s.unclassified) return { transport: s, unmeasured: unclassifiedWhy(s.unclassified) };
  if (Object.keys(s.transports).length === 0) {
    return { transport: s, unmeasured: `NCCL printed ${s.infoLines} INFO line(s) but no connection ("via …") line: a one-rank communicator, or the lines were cut${cutNote}` };
  }
  return { transport: s };
}

/**
 * A connection whose wording is in no known release: what it used is unknown, so no rule on the
 * transport can be judged, whichever way the counted connections would go.
 */
function unclassifiedWhy(u: NonNullable<TransportSummary["unclassified"]>): string {
  const more = u.count > 1 ? ` (and ${u.count - 1} more distinct line(s))` : "";
  return `NCCL printed a connection line gpucheck cannot classify: "${u.lines[0]}"${more}: its "via" wording is not one NCCL is known to print (lib/parsers/nccl-wordings.ts), so which transport it used is unknown; add the wording with its NCCL version, or report it`;
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

/**
 * Whether NCCL's account of one process shows the bytes crossed NET/IB on `hca` and on no other
 * (what NCCL_IB_HCA==<hca> asked for): null when it did, else why, naming what it used instead.
 * `hca` is "mlx5_0:1", or "mlx5_0" for any port of it. A connection's NIC index ("via NET/IB/2")
 * is the position in NCCL's "NET/IB : Using [0]mlx5_0:1/IB …" list, so the list must be there.
 */
export function hcaRoute(s: TransportSummary, hca: string): string | null {
  const [device, port] = hca.split(":");
  const same = (opened: string) => {
    const [d, p] = opened.split("/")[0]!.split(":");
    return d === device && (port === undefined || p === port);
  };
  const listed = s.hcas.map((h, i) => `[${i}]${h}`).join(" ");
  if (usedTransport(s, "NET/Socket")) return `the bytes crossed NET/Socket, not NET/IB on ${hca} (connections: ${connectionCounts(s)})`;
  const others = s.hcas.filter((h) => !same(h));
  if (others.length) {
    const opened = s.hcas.map((h) => h.split("/")[0]).join(", ");
    return `NCCL opened ${opened} (NET/IB : Using ${listed}), not ${hca} alone: the NCCL_IB_HCA pin did not hold`;
  }
  if (!usedTransport(s, "NET/IB")) return `no connection crossed NET/IB, so nothing crossed ${hca} (connections: ${connectionCounts(s)})`;
  if (s.hcas.length === 0) return `NCCL named no HCA it opened (no "NET/IB : Using" line), so which HCA its NET/IB connections crossed is unknown`;
  const stray = s.netDevices.filter((d) => d.startsWith("IB/") && s.hcas[Number(d.slice(3))] === undefined);
  if (stray.length) return `connections via NET/${stray.join(", NET/")}, a NIC index NCCL did not list (NET/IB : Using ${listed}), not ${hca}`;
  return null;
}

/** "8 × NET/IB, all GDRDMA" / "8 × NET/IB, no GDRDMA: staged through host memory": how the bytes crossed. */
export function ibAccount(s: TransportSummary): string {
  const n = s.transports["NET/IB"] ?? 0;
  const gdr = s.transports.GDRDMA ?? 0;
  const how = gdr === 0 ? "no GDRDMA: staged through host memory" : gdr >= n ? "all GDRDMA" : `${gdr} of them GDRDMA`;
  return `${n} × NET/IB, ${how}`;
}
