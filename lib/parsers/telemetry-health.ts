// GPUCHECK_TELEMETRY samples → the health metrics of one test: Xids, throttling, SM clocks under load,
// and what the InfiniBand and NVLink error counters gained between the first sample and the last.
//
// A metric is null with the reason whenever a node could not read its source for part of the test
// (the sample says so under "unmeasured"): an Xid or a throttle that nobody looked for is not absent.
import { xidClass } from "./xid-codes.ts";

type Obj = Record<string, unknown>;
const num = (v: unknown): number | null => (typeof v === "number" && Number.isFinite(v) ? v : null);
const obj = (v: unknown): Obj | null => (v && typeof v === "object" && !Array.isArray(v) ? (v as Obj) : null);
const arr = (v: unknown): Obj[] => (Array.isArray(v) ? (v as Obj[]).filter((x) => obj(x) !== null) : []);

export interface Health {
  metrics: Record<string, number | null>;
  unmeasured: Record<string, string>;
  details: Record<string, string>;
  /** hosts that could not read their GPUs, with why */
  gpuGaps?: string[];
}

/** Clock event reasons that fail a test when they hold a GPU's clocks down (nvsmi.REASON_BITS names). */
export const HW_THROTTLE = ["hw_slowdown", "hw_thermal_slowdown", "hw_power_brake_slowdown"];
/** Utilisation from which a GPU counts as under load for sm_clock_min_mhz. */
export const LOADED_UTIL_PCT = 80;
const MAX_PARTS = 10;

interface GpuSeen {
  host: string;
  index: number;
  pci: string | null;
  samples: number;
  reasonsUnread: number;
  reasons: Map<string, number>;
  loadedClocks: number[];
}

/** `0000:19:00` (kernel log), `00000000:19:00.0` (NVML, nvidia-smi) → `19:00`, to match one GPU. */
export function pciKey(pci: unknown): string {
  const parts = String(pci ?? "")
    .toLowerCase()
    .replace(/\.\d+$/, "")
    .split(":");
  return parts.slice(-2).join(":");
}

const list = (parts: string[]) => (parts.length > MAX_PARTS ? [...parts.slice(0, MAX_PARTS), `… ${parts.length - MAX_PARTS} more`] : parts).join("; ");

export function telemetryHealth(samples: Obj[]): Health {
  const out: Health = { metrics: {}, unmeasured: {}, details: {} };
  const set = (metric: string, value: number | null, detail?: string, reason?: string) => {
    out.metrics[metric] = value;
    if (value === null) out.unmeasured[metric] = reason ?? "not reported by the nodes";
    if (detail) out.details[metric] = detail;
  };
  const byHost = new Map<string, Obj[]>();
  for (const s of samples) {
    const host = String(s.host ?? "unknown");
    const list = byHost.get(host);
    if (list) list.push(s);
    else byHost.set(host, [s]);
  }
  // the first reason each host gave for a source (samples repeat a reason only when it changes)
  const why = (host: string, key: string): string | undefined => {
    for (const s of byHost.get(host) ?? []) {
      const r = obj(s.unmeasured)?.[key];
      if (typeof r === "string") return r;
    }
    return undefined;
  };
  const gaps = (key: string) =>
    [...byHost.keys()]
      .map((h) => [h, why(h, key)] as const)
      .filter(([, r]) => r !== undefined)
      .map(([h, r]) => `${h}: ${r}`);

  const gpus = new Map<string, GpuSeen>();
  for (const [host, ss] of byHost) {
    for (const s of ss) {
      for (const g of arr(s.gpus)) {
        const index = num(g.index);
        if (index === null) continue;
        const key = `${host}\u0000${index}`;
        const seen: GpuSeen = gpus.get(key) ?? { host, index, pci: null, samples: 0, reasonsUnread: 0, reasons: new Map(), loadedClocks: [] };
        gpus.set(key, seen);
        seen.samples++;
        if (typeof g.pci_bus_id === "string") seen.pci = g.pci_bus_id;
        if (Array.isArray(g.throttle_reasons)) for (const r of g.throttle_reasons) seen.reasons.set(String(r), (seen.reasons.get(String(r)) ?? 0) + 1);
        else seen.reasonsUnread++;
        const util = num(g.util_pct);
        const clock = num(g.sm_clock_mhz);
        if (util !== null && util >= LOADED_UTIL_PCT && clock !== null) seen.loadedClocks.push(clock);
      }
    }
  }
  const gpuName = (g: { host: string; index: number | null; pci: string | null }) => `${g.host} GPU ${g.index ?? "?"}${g.pci ? ` (${g.pci})` : ""}`;
  const gpuGaps = gaps("gpus");
  out.gpuGaps = gpuGaps;

  throttleMetrics([...gpus.values()], gpuGaps, gpuName, set);
  clockMetric([...gpus.values()], gpuGaps, gpuName, set);
  xidMetrics(byHost, gaps("xids"), gpus, gpuName, set);
  counterMetrics(byHost, gpus, gpuName, set);
  return out;
}

type Setter = (metric: string, value: number | null, detail?: string, reason?: string) => void;
type Namer = (g: { host: string; index: number | null; pci: string | null }) => string;

function throttleMetrics(gpus: GpuSeen[], gpuGaps: string[], gpuName: Namer, set: Setter) {
  const groups: Array<[string, string[]]> = [
    ["throttle_hw", HW_THROTTLE],
    ["throttle_sw_thermal", ["sw_thermal_slowdown"]],
    ["throttle_sw_power_cap", ["sw_power_cap"]],
  ];
  const unread = gpus.filter((g) => g.reasonsUnread > 0).map((g) => `${gpuName(g)}: clock event reasons unreadable in ${g.reasonsUnread} of ${g.samples} samples`);
  const reason = gpuGaps.length ? `no GPU readings (${gpuGaps.join("; ")})` : unread.length ? unread.join("; ") : gpus.length === 0 ? "no GPU readings in any sample" : undefined;
  let failing: number | null = 0;
  for (const [metric, names] of groups) {
    if (reason) {
      set(metric, null, undefined, reason);
      failing = null;
      continue;
    }
    const hits: string[] = [];
    for (const g of gpus)
      for (const r of names) {
        const n = g.reasons.get(r);
        if (n) hits.push(`${gpuName(g)}: ${r} in ${n} of ${g.samples} samples`);
      }
    set(metric, hits.length, hits.length ? list(hits) : undefined);
    if (metric !== "throttle_sw_power_cap" && failing !== null) failing += hits.length;
  }
  // the old lumped metric: the reasons that fail a test (sw_power_cap is an H100 at its power limit)
  set("throttle_events", failing, undefined, reason);
}

function clockMetric(gpus: GpuSeen[], gpuGaps: string[], gpuName: Namer, set: Setter) {
  if (gpuGaps.length) return set("sm_clock_min_mhz", null, undefined, `no GPU readings (${gpuGaps.join("; ")})`);
  const loaded = gpus.filter((g) => g.loadedClocks.length > 0);
  if (loaded.length === 0) {
    return set("sm_clock_min_mhz", null, undefined, gpus.length ? `no sample with a GPU at ≥ ${LOADED_UTIL_PCT} % utilisation and an SM clock` : "no GPU readings in any sample");
  }
  const rows = loaded.map((g) => {
    const sorted = [...g.loadedClocks].sort((a, b) => a - b);
    return { g, min: sorted[0]!, median: sorted[Math.floor((sorted.length - 1) / 2)]!, n: sorted.length };
  });
  rows.sort((a, b) => a.median - b.median);
  const idle = gpus.filter((g) => g.loadedClocks.length === 0).map((g) => `${gpuName(g)}: never under load`);
  const parts = [...rows.map((r) => `${gpuName(r.g)}: median ${r.median} MHz, min ${r.min} MHz over ${r.n} loaded samples`), ...idle];
  set("sm_clock_min_mhz", rows[0]!.median, list(parts));
}

interface XidSeen {
  host: string;
  index: number | null;
  pci: string | null;
  kind: string;
  code: number;
  count: number;
  sources: Set<string>;
}

function xidMetrics(byHost: Map<string, Obj[]>, xidGaps: string[], gpus: Map<string, GpuSeen>, gpuName: Namer, set: Setter) {
  const silent = [...byHost].filter(([, ss]) => !ss.some((s) => Array.isArray(s.xid_sources))).map(([h]) => `${h}: the samples name no Xid source`);
  const reason = [...xidGaps, ...silent].join("; ");
  const metrics = ["xid_hardware", "xid_application", "xid_events"];
  if (reason || byHost.size === 0) {
    for (const m of metrics) set(m, null, undefined, reason ? `Xid events could not be watched (${reason})` : "no telemetry sample");
    return;
  }
  const seen = new Map<string, XidSeen>();
  for (const [host, ss] of byHost) {
    const indexByPci = new Map([...gpus.values()].filter((g) => g.host === host && g.pci).map((g) => [pciKey(g.pci), g.index]));
    for (const s of ss)
      for (const e of arr(s.xids)) {
        const code = num(e.code);
        if (code === null) continue;
        const kind = e.kind === "sxid" ? "sxid" : "xid";
        const pci = typeof e.pci === "string" ? e.pci : null;
        const index = num(e.gpu) ?? (pci ? (indexByPci.get(pciKey(pci)) ?? null) : null);
        const key = [host, kind, code, pci ? pciKey(pci) : `gpu${index}`].join("\u0000");
        const x: XidSeen = seen.get(key) ?? { host, index, pci, kind, code, count: 0, sources: new Set<string>() };
        seen.set(key, x);
        x.count++;
        x.sources.add(String(e.source ?? "kernel log"));
      }
  }
  const describe = (x: XidSeen) => {
    const where = x.kind === "sxid" ? `${x.host} NVSwitch (${x.pci})` : gpuName(x);
    return `${where}: ${x.kind === "sxid" ? "SXid" : "Xid"} ${x.code}${x.count > 1 ? ` ×${x.count}` : ""} (${[...x.sources].sort().join(", ")})`;
  };
  const all = [...seen.values()];
  const gpuXids = all.filter((x) => x.kind === "xid");
  for (const [metric, events] of [
    ["xid_hardware", gpuXids.filter((x) => xidClass(x.code) === "hardware")],
    ["xid_application", gpuXids.filter((x) => xidClass(x.code) === "application")],
    ["xid_events", all],
  ] as const) {
    set(metric, events.length, events.length ? list(events.map(describe)) : undefined);
  }
}

/** The first counters before the test and the final ones after it, per host; or why not. */
function counterPair(ss: Obj[], group: string): { before: Obj; after: Obj } | { missing: string } {
  const withCounters = ss.filter((s) => obj(s.counters) !== null);
  const first = withCounters[0];
  const last = withCounters.filter((s) => s.final === true).at(-1);
  const reason = (s: Obj | undefined) => obj(s?.unmeasured)?.[group === "ib" ? "ib_counters" : "nvlink_errors"];
  if (!first) return { missing: "no counter reading before the test" };
  if (!last || last === first) return { missing: "no counter reading after the test (the workload ended before its last sample)" };
  const before = obj(obj(first.counters)![group]);
  const after = obj(obj(last.counters)![group]);
  if (!before) return { missing: String(reason(first) ?? "not read before the test") };
  if (!after) return { missing: String(reason(last) ?? "not read after the test") };
  return { before, after };
}

/** What a counter gained; a counter that went backwards was reset during the test: count from 0. */
const gained = (before: unknown, after: unknown): number | null => {
  const a = num(after);
  if (a === null) return null;
  const b = num(before);
  return b === null || a < b ? a : a - b;
};

function counterMetrics(byHost: Map<string, Obj[]>, gpus: Map<string, GpuSeen>, gpuName: Namer, set: Setter) {
  // InfiniBand: link_downed on its own, every other error counter summed
  const ibMissing: string[] = [];
  let downed = 0;
  let errors = 0;
  const downedParts: string[] = [];
  const errorParts: string[] = [];
  for (const [host, ss] of byHost) {
    const pair = counterPair(ss, "ib");
    if ("missing" in pair) {
      ibMissing.push(`${host}: ${pair.missing}`);
      continue;
    }
    for (const [port, after] of Object.entries(pair.after)) {
      const before = obj(pair.before[port]) ?? {};
      const grew: string[] = [];
      for (const [counter, value] of Object.entries(obj(after) ?? {})) {
        const d = gained(before[counter], value);
        if (!d) continue;
        grew.push(`${counter} +${d}`);
        if (counter === "link_downed") downed += d;
        else errors += d;
      }
      const [dev, p] = port.split(":");
      const name = `${host} ${dev} port ${p}`;
      if (grew.some((g) => g.startsWith("link_downed"))) downedParts.push(`${name}: ${grew.filter((g) => g.startsWith("link_downed")).join(", ")}`);
      const other = grew.filter((g) => !g.startsWith("link_downed"));
      if (other.length) errorParts.push(`${name}: ${other.join(", ")}`);
    }
  }
  if (ibMissing.length) {
    const reason = `InfiniBand port counters could not be compared (${ibMissing.join("; ")})`;
    set("ib_link_downed", null, undefined, reason);
    set("ib_port_errors", null, undefined, reason);
  } else {
    set("ib_link_downed", byHost.size ? downed : null, downedParts.length ? list(downedParts) : undefined, "no telemetry sample");
    set("ib_port_errors", byHost.size ? errors : null, errorParts.length ? list(errorParts) : undefined, "no telemetry sample");
  }

  const nvMissing: string[] = [];
  let nvErrors = 0;
  const nvParts: string[] = [];
  for (const [host, ss] of byHost) {
    const pair = counterPair(ss, "nvlink");
    if ("missing" in pair) {
      nvMissing.push(`${host}: ${pair.missing}`);
      continue;
    }
    for (const [gpu, links] of Object.entries(pair.after)) {
      const pci = [...gpus.values()].find((g) => g.host === host && String(g.index) === gpu)?.pci ?? null;
      for (const [link, counters] of Object.entries(obj(links) ?? {})) {
        const before = obj(obj(pair.before[gpu])?.[link]) ?? {};
        const grew: string[] = [];
        for (const [counter, value] of Object.entries(obj(counters) ?? {})) {
          const d = gained(before[counter], value);
          if (!d) continue;
          grew.push(`${counter} +${d}`);
          nvErrors += d;
        }
        if (grew.length) nvParts.push(`${gpuName({ host, index: Number(gpu), pci })} link ${link}: ${grew.join(", ")}`);
      }
    }
  }
  if (nvMissing.length) set("nvlink_errors", null, undefined, `NVLink error counters could not be compared (${nvMissing.join("; ")})`);
  else set("nvlink_errors", byHost.size ? nvErrors : null, nvParts.length ? list(nvParts) : undefined, "no telemetry sample");
}
