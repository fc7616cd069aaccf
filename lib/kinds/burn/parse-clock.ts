// The rate of clock events per minute during a test, from the telemetry samples its logs carry
// (workload/gpucheck_workload/telemetry.py: each sample lists the clock event reasons active on each
// GPU, nvmlClocksEventReasons less gpu_idle). An event is a reason becoming active on a GPU: a reason
// held for many samples is one event, one that comes and goes is counted each time it comes.
import { taggedLines } from "../../parsers/protocol.ts";

type Obj = Record<string, unknown>;
const num = (v: unknown): number | null => (typeof v === "number" && Number.isFinite(v) ? v : null);
const obj = (v: unknown): Obj => (v && typeof v === "object" && !Array.isArray(v) ? (v as Obj) : {});

export interface ClockRate {
  /** the highest per-GPU rate, events per minute; null when it could not be counted */
  value: number | null;
  why?: string;
  /** every GPU's rate and reasons, highest first */
  detail?: string;
}

interface Gpu {
  host: string;
  index: number;
  pci: string | null;
  active: Set<string>;
  events: Map<string, number>;
  unread: number;
  samples: number;
}

export function clockEventRate(texts: string[]): ClockRate {
  const samples = texts.flatMap((t) => taggedLines(t, "TELEMETRY")).sort((a, b) => (num(a.t) ?? 0) - (num(b.t) ?? 0));
  if (samples.length === 0) return { value: null, why: "no telemetry sample in the output (the sampler runs beside local rank 0 of each node)" };
  const gaps = new Map<string, string>();
  const gpus = new Map<string, Gpu>();
  for (const s of samples) {
    const host = String(s.host ?? "unknown");
    const why = obj(s.unmeasured).gpus;
    if (typeof why === "string" && !gaps.has(host)) gaps.set(host, why);
    for (const g of Array.isArray(s.gpus) ? (s.gpus as unknown[]).map(obj) : []) {
      const index = num(g.index);
      if (index === null) continue;
      const key = `${host}\u0000${index}`;
      const gpu: Gpu = gpus.get(key) ?? { host, index, pci: null, active: new Set(), events: new Map(), unread: 0, samples: 0 };
      gpus.set(key, gpu);
      gpu.samples++;
      if (typeof g.pci_bus_id === "string") gpu.pci = g.pci_bus_id;
      if (!Array.isArray(g.throttle_reasons)) {
        gpu.unread++;
        continue;
      }
      const now = new Set(g.throttle_reasons.map(String));
      for (const r of now) if (!gpu.active.has(r)) gpu.events.set(r, (gpu.events.get(r) ?? 0) + 1);
      gpu.active = now;
    }
  }
  const name = (g: Gpu) => `${g.host} GPU ${g.index}${g.pci ? ` (${g.pci})` : ""}`;
  if (gaps.size) return { value: null, why: `no GPU readings (${[...gaps].map(([h, w]) => `${h}: ${w}`).join("; ")})` };
  if (gpus.size === 0) return { value: null, why: "no GPU readings in any sample" };
  const unread = [...gpus.values()].filter((g) => g.unread > 0);
  if (unread.length) return { value: null, why: unread.map((g) => `${name(g)}: clock event reasons unreadable in ${g.unread} of ${g.samples} samples`).join("; ") };
  const ts = samples.map((s) => num(s.t)).filter((t): t is number => t !== null);
  const minutes = ts.length > 1 ? (ts.at(-1)! - ts[0]!) / 60 : 0;
  if (!(minutes > 0)) return { value: null, why: `the telemetry samples span no time (${samples.length} sample${samples.length === 1 ? "" : "s"}): no rate per minute` };
  const rows = [...gpus.values()]
    .map((g) => {
      const total = [...g.events.values()].reduce((a, b) => a + b, 0);
      const reasons = [...g.events].map(([r, n]) => `${r} ×${n}`).join(", ");
      return { rate: total / minutes, text: `${name(g)}: ${(total / minutes).toFixed(2)}/min (${total} in ${minutes.toFixed(1)} min${reasons ? `: ${reasons}` : ""})` };
    })
    .sort((a, b) => b.rate - a.rate);
  return { value: rows[0]!.rate, detail: rows.map((r) => r.text).join("; ") };
}
