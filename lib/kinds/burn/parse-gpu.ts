// Per GPU during a burn: the checksum mismatches each rank counted (workload burn.py Checksums), and
// what the telemetry samples say of that GPU while it was loaded: its SM clock, temperature, power
// and the clock event reasons that held it down. Each a component value, so a suite judges every
// GPU on its own (a threshold) or against the node's others (`outlier:`), and the verdict names it.
//
// A rank's GPU is found in the samples by its host and PCI bus id (index when the bus id is
// missing). A CPU rank, or a GPU no sample read, has these values null with the reason: a clock
// nobody read is not a steady one.
import { HW_THROTTLE, LOADED_UTIL_PCT, pciKey } from "../../parsers/telemetry-health.ts";
import { gpuPart, num, obj, type RankDevice } from "../../parsers/part.ts";
import { taggedLines } from "../../parsers/protocol.ts";

type Obj = Record<string, unknown>;

export interface GpuLoad {
  values: Record<string, number | null>;
  unmeasured: Record<string, string>;
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

/** The telemetry readings of one GPU: every sample's entry for it on its host. */
function readings(samples: Obj[], r: RankDevice): Obj[] {
  const pci = typeof r.device.pci_bus_id === "string" ? pciKey(r.device.pci_bus_id) : null;
  const index = num(r.device.index);
  return samples
    .filter((s) => s.host === r.host)
    .flatMap((s) => (Array.isArray(s.gpus) ? (s.gpus as unknown[]).map(obj) : []))
    .filter((g) => (pci !== null && typeof g.pci_bus_id === "string" ? pciKey(g.pci_bus_id) === pci : index !== null && num(g.index) === index));
}

export const GPU_LOAD_METRICS = ["burn_gpu_sm_clock_mhz", "burn_gpu_temp_max_c", "burn_gpu_power_mean_w", "burn_gpu_throttle_hw", "burn_gpu_throttle_sw_thermal"] as const;

/** One rank's GPU under the burn, from the telemetry samples in the logs. */
export function gpuLoad(samples: Obj[], r: RankDevice): GpuLoad {
  const out: GpuLoad = { values: {}, unmeasured: {} };
  const none = (why: string) => {
    for (const k of GPU_LOAD_METRICS) {
      out.values[k] = null;
      out.unmeasured[k] = why;
    }
    return out;
  };
  if (r.device.type !== "cuda") return none("a CPU rank: no GPU clock, temperature, power or clock event reason to read");
  if (samples.length === 0) return none("no telemetry sample in the output (the sampler runs beside local rank 0 of each node)");
  const own = readings(samples, r);
  if (own.length === 0) return none(`no telemetry sample read ${gpuPart(r)}`);
  const loaded = own.filter((g) => (num(g.util_pct) ?? 0) >= LOADED_UTIL_PCT);
  const set = (k: string, v: number | null, why: string) => {
    out.values[k] = v;
    if (v === null) out.unmeasured[k] = why;
  };
  const clocks = loaded.map((g) => num(g.sm_clock_mhz)).filter((v): v is number => v !== null);
  set("burn_gpu_sm_clock_mhz", clocks.length ? median(clocks) : null, `no sample of ${gpuPart(r)} at ≥ ${LOADED_UTIL_PCT} % utilisation with an SM clock (${own.length} samples)`);
  const temps = own.map((g) => num(g.temp_c)).filter((v): v is number => v !== null);
  set("burn_gpu_temp_max_c", temps.length ? Math.max(...temps) : null, `no temperature of ${gpuPart(r)} in ${own.length} samples`);
  const powers = loaded.map((g) => num(g.power_w)).filter((v): v is number => v !== null);
  set(
    "burn_gpu_power_mean_w",
    powers.length ? powers.reduce((a, b) => a + b, 0) / powers.length : null,
    `no sample of ${gpuPart(r)} at ≥ ${LOADED_UTIL_PCT} % utilisation with a power draw (${own.length} samples)`,
  );
  const unread = own.filter((g) => !Array.isArray(g.throttle_reasons)).length;
  const seen = new Set(own.flatMap((g) => (Array.isArray(g.throttle_reasons) ? g.throttle_reasons.map(String) : [])));
  const why = `clock event reasons of ${gpuPart(r)} unreadable in ${unread} of ${own.length} samples`;
  set("burn_gpu_throttle_hw", unread ? null : HW_THROTTLE.filter((x) => seen.has(x)).length, why);
  set("burn_gpu_throttle_sw_thermal", unread ? null : seen.has("sw_thermal_slowdown") ? 1 : 0, why);
  return out;
}

/** Every telemetry sample the test's logs carry (rank 0's output when there are no logs). */
export function telemetrySamples(texts: string[]): Obj[] {
  return texts.flatMap((t) => taggedLines(t, "TELEMETRY"));
}

export interface RankChecksum {
  mismatches: number | null;
  why?: string;
  text: string;
}

/** One rank's checksum account: its mismatches, or why it has none to give. */
export function rankChecksum(raw: Obj): RankChecksum {
  const c = obj(raw.checksum);
  const checks = num(c.checks);
  const mismatches = num(c.mismatches);
  if (typeof raw.unmeasured === "string") return { mismatches: null, why: raw.unmeasured, text: raw.unmeasured };
  if (checks === null || mismatches === null) return { mismatches: null, why: "the rank reported no checksum account", text: "no checksum account" };
  if (checks === 0) return { mismatches: null, why: "no checksum ran (no timed iteration)", text: "no checksum ran" };
  const at = Array.isArray(c.mismatch_at_s) && c.mismatch_at_s.length ? ` (at ${c.mismatch_at_s.map((t) => `${t} s`).join(", ")})` : "";
  const split = num(c.no_majority) ? `, ${num(c.no_majority)} with no majority among its model` : "";
  const text = `${mismatches} of ${checks} checks differed (${num(c.self_mismatches) ?? "?"} from its own first product, ${num(c.cross_mismatches) ?? "?"} from its model's majority${split})${at}`;
  return { mismatches, text };
}
