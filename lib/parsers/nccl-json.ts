// The `-J out.json` file of nccl-tests ≥2.17.3 (JSON_FILE_VERSION 1, 2 from 2.19.2, 3 at 2.19.6) →
// NcclReport. Its gotchas: `root` is the string "    -1" (the "%6i" text), `okay` fields are the
// strings "true"/"false"/"unchecked", NaN is the string "nan", version 1 spelt
// "average_bus_bandwidith"/"bandwidith", `nwrong` is null with -c 0, and `out_of_place` is null
// for in-place-only rows. The file records no failure text (that goes to stdout), so `failure` is
// always null here and `complete` means the footer (average_bus_bandwidth) was written.
import { ParseError } from "../core/errors.ts";
import { collectiveName } from "./nccl-line.ts";
import { closeTruncated, nullBareNonFinite } from "./nccl-json-repair.ts";
import { maxBusbw, type NcclPlacement, type NcclReport, type NcclRow } from "./nccl-report.ts";

type Obj = Record<string, unknown>;

/** null when the text is JSON but not an nccl-tests file, or not JSON at all */
export function parseNcclJson(text: string): NcclReport | null {
  const doc = readDocument(text);
  if (!doc || !("results" in doc || "nccl_version" in doc || "config" in doc)) return null;
  const rows = Array.isArray(doc.results) ? doc.results.flatMap((r) => (isObj(r) ? toRow(r) : [])) : [];
  const avgObj = obj(doc.average_bus_bandwidth) ?? obj(doc.average_bus_bandwidith);
  const args = Array.isArray(doc.args) ? doc.args : [];
  const devices = obj(doc.config)?.devices;
  return {
    collective: typeof args[0] === "string" ? collectiveName(args[0]) : null,
    ranks: Array.isArray(devices) && devices.length > 0 ? devices.length : null,
    rows,
    maxBusbwGBs: maxBusbw(rows),
    avgBusbwGBs: avgObj ? num(avgObj.bandwidth ?? avgObj.bandwidith) : null,
    outOfBounds: num(obj(doc.out_of_bounds)?.count),
    complete: avgObj !== null,
    failure: null,
  };
}

function readDocument(text: string): Obj | null {
  try {
    const v: unknown = JSON.parse(text);
    return isObj(v) ? v : null;
  } catch (err) {
    const closed = closeTruncated(nullBareNonFinite(text));
    try {
      const v: unknown = closed === null ? null : JSON.parse(closed);
      return isObj(v) ? v : null;
    } catch {
      if (!/"nccl_version"\s*:/.test(text)) return null;
      throw new ParseError(`unreadable nccl-tests JSON file: ${(err as Error).message}`);
    }
  }
}

/** A row cut short by a crash (no in_place yet) is not a result. */
function toRow(r: Obj): NcclRow[] {
  if (!("in_place" in r) || typeof r.size !== "number" || typeof r.count !== "number") return [];
  const root = typeof r.root === "string" ? Number.parseInt(r.root.trim(), 10) : num(r.root);
  return [
    {
      size: r.size,
      count: r.count,
      type: typeof r.type === "string" ? r.type : "",
      redop: typeof r.redop === "string" ? r.redop : null,
      root: Number.isNaN(root) ? null : root,
      outOfPlace: placement(r.out_of_place),
      inPlace: placement(r.in_place),
    },
  ];
}

function placement(v: unknown): NcclPlacement | null {
  const p = obj(v);
  if (!p) return null;
  return { timeUs: num(p.time ?? p.cpu_time), algbwGBs: num(p.alg_bw), busbwGBs: num(p.bus_bw), wrong: num(p.nwrong) };
}

/** numbers as written; "nan", null and anything else → null */
function num(v: unknown): number | null {
  return typeof v === "number" && Number.isFinite(v) ? v : null;
}

function obj(v: unknown): Obj | null {
  return isObj(v) ? v : null;
}

function isObj(v: unknown): v is Obj {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
