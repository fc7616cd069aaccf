// GPUCHECK_INVENTORY / inventory GPUCHECK_RESULT → NodeInventory and inventory metrics.
import { ParseError } from "../errors.ts";
import type { Measurement, NodeInventory } from "../types.ts";
import { taggedLines } from "./protocol.ts";

type Obj = Record<string, unknown>;
const arr = (v: unknown): Obj[] => (Array.isArray(v) ? (v as Obj[]) : []);
const n = (v: unknown): number => (typeof v === "number" && Number.isFinite(v) ? v : 0);

export function toInventory(raw: Obj): NodeInventory {
  return {
    ...raw,
    hostname: String(raw.hostname ?? "unknown"),
    gpus: arr(raw.gpus).map((g, i) => ({ ...g, index: typeof g.index === "number" ? g.index : i, name: String(g.name ?? "unknown") })),
  };
}

/** Every node's inventory found in the given logs, one per hostname (the last wins). */
export function collectInventories(texts: string[]): NodeInventory[] {
  const byHost = new Map<string, NodeInventory>();
  for (const t of texts) for (const raw of taggedLines(t, "INVENTORY")) {
    const inv = toInventory(raw);
    byHost.set(inv.hostname, inv);
  }
  return [...byHost.values()];
}

export function inventoryMetrics(inv: NodeInventory): Record<string, number> {
  const gpus = inv.gpus as Obj[];
  return {
    gpu_count: gpus.length,
    nvlink_inactive: gpus.reduce((s, g) => s + arr(g.nvlinks).filter((l) => String(l.state).toLowerCase() !== "active" && l.state !== true && l.state !== "up").length, 0),
    ecc_uncorrected: gpus.reduce((s, g) => s + n(g.ecc_uncorrected_volatile) + n(g.ecc_uncorrected_aggregate), 0),
    retired_pages: gpus.reduce((s, g) => s + n(g.retired_pages), 0),
    remapped_rows_pending: gpus.reduce((s, g) => s + (g.remapped_rows_pending === true ? 1 : n(g.remapped_rows_pending)), 0),
    ib_ports_active: arr(inv.ib_ports).filter((p) => String(p.state).toUpperCase().includes("ACTIVE")).length,
    xid_events: arr(inv.xid_events).length,
  };
}

export function inventoryMeasurement(output: string): Measurement {
  const result = taggedLines(output, "RESULT").pop();
  if (!result) throw new ParseError("no GPUCHECK_RESULT line in the inventory output");
  const inv = toInventory(result);
  return { metrics: inventoryMetrics(inv), raw: inv };
}
