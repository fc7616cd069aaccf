// The part a per-rank value belongs to, as the per-GPU kinds (gemm, membw, pcie) report their ranks:
// each rank's `device` from workload/gpucheck_workload/device_id.py. One place, so a verdict names a
// GPU the same way whichever kind measured it.
import type { PartId, RankDeviceId } from "../core/types.ts";

type Obj = Record<string, unknown>;
export const num = (v: unknown): number | null => (typeof v === "number" && Number.isFinite(v) ? v : null);
export const obj = (v: unknown): Obj => (v && typeof v === "object" && !Array.isArray(v) ? (v as Obj) : {});

/** A rank as the per-GPU kinds' results list it: who ran it and on which device. */
export interface RankDevice {
  rank: number;
  host: string;
  device: Obj;
}

/** `ranks[i]` of a result: rank, host and device read loosely (the parser says what is missing). */
export function rankDevice(x: unknown, i: number): RankDevice & { raw: Obj } {
  const r = obj(x);
  return { rank: num(r.rank) ?? i, host: typeof r.host === "string" ? r.host : "unknown host", device: obj(r.device), raw: r };
}

/** "node1 GPU 3 (GPU-5d2a…, 00000000:19:00.0)", or "node1 rank 1 (CPU: AMD EPYC)": the part a value belongs to. */
export function gpuPart(r: RankDevice): string {
  const d = r.device;
  if (d.type !== "cuda") return `${r.host} rank ${r.rank} (CPU: ${String(d.name ?? "unknown")})`;
  const ids = [d.uuid, d.pci_bus_id].filter((v) => typeof v === "string");
  const index = num(d.index) ?? `cuda:${num(d.cuda_index) ?? "?"}`;
  const why = typeof d.unnamed === "string" ? `; not matched to nvidia-smi: ${d.unnamed}` : "";
  return `${r.host} GPU ${index} (${[...ids, ...(why ? [why.slice(2)] : [])].join(", ") || "no UUID"})`;
}

/** The same part as a Measurement's component names it. */
export function componentPart(r: RankDevice): PartId {
  const d = r.device;
  const part: PartId = { type: d.type === "cuda" ? "gpu" : "cpu", host: r.host, rank: r.rank };
  const index = num(d.index);
  if (index !== null) part.index = index;
  if (typeof d.uuid === "string") part.uuid = d.uuid;
  if (typeof d.pci_bus_id === "string") part.pciBusId = d.pci_bus_id;
  if (typeof d.name === "string") part.name = d.name;
  return part;
}

/** The devices the ranks ran on, for the GPU-suite checks of lib/assess/devices.ts. */
export function rankDevices(ranks: RankDevice[]): RankDeviceId[] {
  return ranks.map((r) => {
    const d = r.device;
    const str = (v: unknown) => (typeof v === "string" && v !== "" ? v : null);
    const id: RankDeviceId = {
      rank: r.rank,
      host: r.host,
      type: d.type === "cuda" ? "cuda" : "cpu",
      name: str(d.name),
      index: num(d.index),
      uuid: str(d.uuid),
      pciBusId: str(d.pci_bus_id),
    };
    if (str(d.unnamed)) id.unnamed = str(d.unnamed)!;
    return id;
  });
}
