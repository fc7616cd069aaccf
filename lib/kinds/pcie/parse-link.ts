// The pcie result's links → pcie_link_degraded (GPUs below their Max read under load, and the
// compute HCAs the test names below what their slot allows, each named) and pcie_replays (Replays Since Reset gained during the
// copies, summed over the GPUs). A link that could not be read makes the metric null with the
// reason: an unread link is never a link at its maximum.
import type { ComponentValues, Measurement } from "../../core/types.ts";
import { gpuPart, num, obj, type RankDevice } from "../../parsers/part.ts";

type Obj = Record<string, unknown>;

export interface LinkRank extends RankDevice {
  /** the rank's entry as printed (local_rank) */
  raw: Obj;
  link: Obj;
  nics: unknown;
  component: ComponentValues;
}

const GPU_FIELDS = { gen: "PCIe Generation Current", gen_max: "PCIe Generation Max", width: "Link Width Current", width_max: "Link Width Max" } as const;
const NIC_FIELDS = { speed_gts: "current_link_speed", speed_max_gts: "max_link_speed", width: "current_link_width", width_max: "max_link_width" } as const;

interface Judged {
  part: string;
  degraded: boolean;
  text: string;
}

export function linkMetrics(m: Measurement, ranks: LinkRank[], hcas?: string[]): void {
  const judged: Judged[] = [];
  const gaps: string[] = [];
  for (const r of ranks) {
    const part = gpuPart(r);
    const v = Object.fromEntries(Object.keys(GPU_FIELDS).map((k) => [k, num(r.link[k])])) as Record<keyof typeof GPU_FIELDS, number | null>;
    for (const [k, value] of Object.entries(v)) r.component.metrics[`pcie_${k}`] = value;
    const missing = (Object.keys(GPU_FIELDS) as Array<keyof typeof GPU_FIELDS>).filter((k) => v[k] === null);
    const why = typeof r.link.unread === "string" ? r.link.unread : missing.length ? `nvidia-smi -q gave no number for ${missing.map((k) => GPU_FIELDS[k]).join(", ")}` : undefined;
    if (why) {
      gaps.push(`${part}: ${why}`);
      for (const k of Object.keys(GPU_FIELDS)) if (r.component.metrics[`pcie_${k}`] === null) r.component.unmeasured![`pcie_${k}`] = why;
      continue;
    }
    judged.push({
      part,
      degraded: v.gen! < v.gen_max! || v.width! < v.width_max!,
      text: `Gen${v.gen} x${v.width} (max Gen${v.gen_max} x${v.width_max}, read while its copies ran)`,
    });
  }
  const nics = nicLinks(ranks, gaps, hcas);
  judged.push(...nics.judged);
  m.components!.push(...nics.components);
  const metric = "pcie_link_degraded";
  if (gaps.length) {
    m.metrics[metric] = null;
    m.unmeasured![metric] = gaps.join("; ");
  } else {
    const bad = judged.filter((j) => j.degraded);
    const good = judged.length - bad.length;
    m.metrics[metric] = bad.length;
    m.details![metric] = [
      ...(bad.length ? [`below their maximum: ${bad.map((j) => `${j.part}: ${j.text}`).join("; ")}`] : []),
      `at their maximum (${good} of ${judged.length} links): ${
        judged
          .filter((j) => !j.degraded)
          .map((j) => `${j.part}: ${j.text}`)
          .join("; ") || "none"
      }`,
      ...nics.notes,
    ].join("; ");
  }
  replays(m, ranks);
}

/**
 * The compute HCAs' links (`hcas`, the names the suite gives; none judged when it gives none), each
 * against what its slot allows: the lower of its own and its upstream port's max_link_speed/width.
 * The other HCAs (storage, Ethernet, DPU ports) are recorded as components, never judged.
 */
function nicLinks(ranks: LinkRank[], gaps: string[], hcas: string[] | undefined): { judged: Judged[]; components: ComponentValues[]; notes: string[] } {
  const judged: Judged[] = [];
  const components: ComponentValues[] = [];
  const notes: string[] = [];
  for (const r of ranks.filter((x) => num(x.raw.local_rank) === 0)) {
    if (!Array.isArray(r.nics)) {
      gaps.push(`${r.host}: local rank 0 did not report the InfiniBand HCAs' links`);
      continue;
    }
    const found = r.nics.map((x) => obj(x));
    if (found.length === 0 && !hcas) notes.push(`${r.host}: no InfiniBand HCA (/sys/class/infiniband is empty or absent)`);
    const names = new Set(found.map((n) => String(n.device)));
    for (const h of hcas ?? []) if (!names.has(h)) gaps.push(`${r.host} ${h}: named in pcie.hcas but not under /sys/class/infiniband (found: ${[...names].join(", ") || "none"})`);
    const skipped: string[] = [];
    for (const n of found) {
      const part = `${r.host} ${String(n.device)} (${String(n.pci_bus_id)})`;
      const v = Object.fromEntries(Object.keys(NIC_FIELDS).map((k) => [k, num(n[k])])) as Record<keyof typeof NIC_FIELDS, number | null>;
      const c: ComponentValues = { part: { type: "nic", host: r.host, name: String(n.device), pciBusId: String(n.pci_bus_id) }, metrics: {}, unmeasured: {} };
      for (const [k, value] of Object.entries(v)) c.metrics[`pcie_${k}`] = value;
      components.push(c);
      if (!hcas?.includes(String(n.device))) {
        skipped.push(String(n.device));
        continue;
      }
      const missing = (Object.keys(NIC_FIELDS) as Array<keyof typeof NIC_FIELDS>).filter((k) => v[k] === null);
      if (missing.length) {
        const why = typeof n.unread === "string" ? n.unread : `sysfs gave no number for ${missing.map((k) => NIC_FIELDS[k]).join(", ")}`;
        gaps.push(`${part}: ${why}`);
        for (const k of missing) c.unmeasured![`pcie_${k}`] = why;
        continue;
      }
      const slot = slotLimit(n, v.speed_max_gts!, v.width_max!);
      if (slot.gap) {
        gaps.push(`${part}: ${slot.gap}`);
        continue;
      }
      judged.push({
        part,
        degraded: v.speed_gts! < slot.speed || v.width! < slot.width,
        text: `${v.speed_gts} GT/s x${v.width} (${slot.text})`,
      });
    }
    if (skipped.length)
      notes.push(
        hcas
          ? `${r.host}: not compute HCAs of this test (pcie.hcas), recorded, not judged: ${skipped.join(", ")}`
          : `${r.host}: HCA links recorded, not judged (name the compute HCAs in pcie.hcas to judge them): ${skipped.join(", ")}`,
      );
  }
  return { judged, components, notes };
}

/** What the HCA's slot allows: the lower of its own maximum and its upstream port's, said in words. */
function slotLimit(n: Obj, speedMax: number, widthMax: number): { speed: number; width: number; text: string; gap?: string } {
  const own = `max ${speedMax} GT/s x${widthMax}`;
  const up = n.upstream === undefined ? undefined : obj(n.upstream);
  // a workload that does not read the port above: its own maximum, the stricter bound
  if (!up) return { speed: speedMax, width: widthMax, text: `${own}; upstream port not reported` };
  if (typeof up.pci_bus_id !== "string") return { speed: speedMax, width: widthMax, text: `${own}; ${typeof up.note === "string" ? up.note : "no upstream port"}` };
  const speed = num(up.speed_max_gts);
  const width = num(up.width_max);
  if (speed === null || width === null) {
    return {
      speed: speedMax,
      width: widthMax,
      text: own,
      gap: `its upstream port ${up.pci_bus_id}'s capability could not be read: ${typeof up.unread === "string" ? up.unread : "not reported"}`,
    };
  }
  const s = Math.min(speedMax, speed);
  const w = Math.min(widthMax, width);
  return { speed: s, width: w, text: `slot allows ${s} GT/s x${w}: device max ${speedMax} GT/s x${widthMax}, upstream port ${up.pci_bus_id} max ${speed} GT/s x${width}` };
}

function replays(m: Measurement, ranks: LinkRank[]): void {
  const metric = "pcie_replays";
  const gaps: string[] = [];
  const deltas: Array<{ part: string; delta: number; before: number; after: number }> = [];
  for (const r of ranks) {
    const before = num(r.link.replays_before);
    const after = num(r.link.replays_after);
    const part = gpuPart(r);
    if (before === null || after === null) {
      const why = typeof r.link.unread === "string" ? r.link.unread : typeof r.link.replays_unread === "string" ? r.link.replays_unread : "Replays Since Reset not reported";
      gaps.push(`${part}: ${why}`);
      r.component.metrics.pcie_replays = null;
      r.component.unmeasured!.pcie_replays = why;
      continue;
    }
    // a counter that went down was reset (a GPU reset during the test): what it counts now is all new
    const delta = after >= before ? after - before : after;
    r.component.metrics.pcie_replays = delta;
    deltas.push({ part, delta, before, after });
  }
  if (gaps.length) {
    m.metrics[metric] = null;
    m.unmeasured![metric] = gaps.join("; ");
    return;
  }
  const total = deltas.reduce((s, d) => s + d.delta, 0);
  m.metrics[metric] = total;
  const bad = deltas.filter((d) => d.delta > 0).sort((a, b) => b.delta - a.delta);
  m.details![metric] = bad.length
    ? bad.map((d) => `${d.part}: ${d.delta} replay${d.delta === 1 ? "" : "s"} (Replays Since Reset ${d.before} → ${d.after})`).join("; ")
    : `no PCIe replay on any of the ${deltas.length} GPUs during the copies (nvidia-smi -q Replays Since Reset before and after)`;
}
