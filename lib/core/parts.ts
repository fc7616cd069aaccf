// How a component (PartId) is named in messages, JUnit testcase names and tables: what a person
// needs to find it in the rack: host, GPU index, UUID and PCI bus, or the rank a CPU stands in for.
import type { PartId } from "./types.ts";

/** "GPU 3 00000000:19:00.0", "rank 1 (CPU)", "NIC mlx5_0": the part within its host. */
export function partLabel(p: PartId): string {
  if (p.type === "cpu") return `rank ${p.rank ?? "?"} (CPU)`;
  if (p.type === "disk") return `disk ${p.name ?? "?"}${p.rank !== undefined ? ` [rank ${p.rank}]` : ""}`;
  const what = p.type === "gpu" ? "GPU" : p.type === "nic" ? "NIC" : "link";
  const id = p.index ?? p.name ?? (p.rank !== undefined ? `rank ${p.rank}` : "?");
  return `${what} ${id}${p.pciBusId ? ` ${p.pciBusId}` : ""}`;
}

/** "node1 GPU 3 (GPU-5d2a…, 00000000:19:00.0)", "node1 rank 1 (CPU: AMD EPYC)": the part in messages. */
export function partName(p: PartId): string {
  if (p.type === "cpu") return `${p.host} rank ${p.rank ?? "?"} (CPU${p.name ? `: ${p.name}` : ""})`;
  // a storage path: several ranks of one machine may each be given their own device
  if (p.type === "disk") return `${p.host} ${partLabel(p)}`;
  const what = p.type === "gpu" ? "GPU" : p.type === "nic" ? "NIC" : "link";
  const id = p.index ?? p.name ?? (p.rank !== undefined ? `rank ${p.rank}` : "?");
  const ids = [p.uuid, p.pciBusId, p.type === "nic" && p.index !== undefined ? p.name : undefined].filter((v) => v !== undefined);
  return `${p.host} ${what} ${id}${ids.length ? ` (${ids.join(", ")})` : ""}`;
}

/** One key per part, to group its checks (the same GPU judged on several metrics is one testcase). */
export function partKey(p: PartId): string {
  return JSON.stringify([p.host, p.type, p.rank ?? null, p.index ?? null, p.uuid ?? null, p.pciBusId ?? null, p.name ?? null]);
}
