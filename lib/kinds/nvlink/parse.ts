// The nvlink command's GPUCHECK_RESULT → metrics: every ordered pair of ranks on one host is a link,
// named by its two ends (host, GPU index, UUID, PCI bus of each); the worst pair alone and the median
// pair, the worst link with all pairs at once, the same three for the copy-engine phase, and each
// link's own values as a component, so the outlier rule can name a degraded link against the node's
// other links. A phase that did not run (copy engines on a CPU) leaves its values null with the reason.
import { ParseError } from "../../core/errors.ts";
import type { ComponentValues, Measurement, PartId } from "../../core/types.ts";
import { gbps, type PartValue, setLowest } from "../../parsers/lowest.ts";
import { gpuPart, num, obj, type RankDevice, rankDevice, rankDevices } from "../../parsers/part.ts";
import { taggedLines } from "../../parsers/protocol.ts";
import { NVBANDWIDTH_METRICS, setNvbandwidth } from "./nvbandwidth.ts";

/** the result's phase → the component metric of each link in it */
export const NVLINK_PHASES = { pairs: "nvlink_link_gbps", all: "nvlink_link_all_gbps" } as const;
/** the copy-engine phase's component metric of each link, by the same phases */
export const NVLINK_CE = { pairs: "nvlink_ce_gbps", all: "nvlink_ce_all_gbps" } as const;

/** "GPU 3 (GPU-5d2a…, 00000000:19:00.0)", "rank 1 (CPU: AMD EPYC)": one end of a link, within its host */
export const linkEnd = (r: RankDevice): string => gpuPart(r).slice(r.host.length + 1);

/** A link as a part: the sender's rank, both ends named ("GPU 0 (…)→GPU 3 (…)") so a verdict says which cable or switch port. */
export function linkPart(src: RankDevice, dst: RankDevice): PartId {
  return { type: "link", host: src.host, rank: src.rank, name: `${linkEnd(src)}→${linkEnd(dst)}` };
}

export interface Link {
  src: RankDevice;
  dst: RankDevice;
  component: ComponentValues;
}

/** Every ordered pair of distinct ranks on one host: the links the result must cover, by src then dst. */
export function expectedLinks(ranks: RankDevice[]): Link[] {
  return ranks.flatMap((src) =>
    ranks.filter((dst) => dst.host === src.host && dst.rank !== src.rank).map((dst) => ({ src, dst, component: { part: linkPart(src, dst), metrics: {}, unmeasured: {} } })),
  );
}

export function nvlinkMeasurement(output: string): Measurement {
  const result = taggedLines(output, "RESULT").pop();
  if (!result) throw new ParseError("no GPUCHECK_RESULT line in rank 0's output: the nvlink run did not finish");
  if (!Array.isArray(result.ranks) || result.ranks.length === 0) throw new ParseError("the nvlink result lists no ranks");
  const ranks = (result.ranks as unknown[]).map((x, i) => rankDevice(x, i));
  const links = expectedLinks(ranks);
  const m: Measurement = { metrics: {}, unmeasured: {}, details: {}, raw: result, components: links.map((l) => l.component), devices: rankDevices(ranks) };
  if (links.length === 0) {
    const why = `no two ranks share a host (${ranks.map((r) => `rank ${r.rank} on ${r.host}`).join(", ")}): a link joins two GPUs of one node`;
    for (const metric of [
      "nvlink_pair_gbps_min",
      "nvlink_pair_gbps_median",
      "nvlink_all_gbps_min",
      "nvlink_ce_gbps_min",
      "nvlink_ce_gbps_median",
      "nvlink_ce_all_gbps_min",
      ...Object.values(NVBANDWIDTH_METRICS).map((t) => t.min),
    ]) {
      m.metrics[metric] = null;
      m.unmeasured![metric] = why;
    }
    return m;
  }
  const cpu = ranks.some((r) => r.device.type !== "cuda");
  const prefix = cpu
    ? "device: cpu — gloo between processes over TCP loopback (host memory), no NVLink crossed; "
    : "NCCL send/recv between GPUs of one node (NVLink/NVSwitch where NCCL uses P2P); ";
  const rows = Object.fromEntries((Object.keys(NVLINK_PHASES) as Array<keyof typeof NVLINK_PHASES>).map((phase) => [phase, phaseValues(links, result[phase], phase)])) as Record<
    keyof typeof NVLINK_PHASES,
    PartValue[]
  >;
  setLowest(m, "nvlink_pair_gbps_min", rows.pairs, prefix);
  setLowest(m, "nvlink_all_gbps_min", rows.all, prefix);
  setMedian(m, "nvlink_pair_gbps_median", rows.pairs, prefix);
  const ce = "copy engines: dst.copy_(src) from local rank 0 between GPUs of one node (peer-to-peer cudaMemcpyAsync over NVLink/NVSwitch, no NCCL); ";
  const cePairs = ceValues(links, result.ce, "pairs");
  setLowest(m, "nvlink_ce_gbps_min", cePairs, ce);
  setMedian(m, "nvlink_ce_gbps_median", cePairs, ce);
  setLowest(m, "nvlink_ce_all_gbps_min", ceValues(links, result.ce, "all"), ce);
  // NVIDIA's nvbandwidth, where the node has it: its four peer testcases, each pair its own part
  setNvbandwidth(m, Array.isArray(result.ce) ? (result.ce as unknown[]).map(obj) : []);
  // a host whose phase did not run at all is said once, not once per link
  const skipped = Array.isArray(result.ce) ? (result.ce as unknown[]).map(obj).filter((h) => typeof h.why === "string") : [];
  if (skipped.length && cePairs.every((r) => r.value === null)) {
    for (const metric of ["nvlink_ce_gbps_min", "nvlink_ce_gbps_median", "nvlink_ce_all_gbps_min"])
      m.unmeasured![metric] = skipped.map((h) => `${String(h.host)}: ${String(h.why)}`).join("; ");
  }
  return m;
}

const byPair = (entries: unknown) => new Map((Array.isArray(entries) ? entries : []).map((e) => [`${num(obj(e).src)}>${num(obj(e).dst)}`, obj(e)]));

/** One send/recv phase's GB/s of every expected link, set on its component; a link the result lacks is null with why. */
function phaseValues(links: Link[], entries: unknown, phase: keyof typeof NVLINK_PHASES): PartValue[] {
  const timed = byPair(entries);
  return linkValues(links, NVLINK_PHASES[phase], (l) => timed.get(`${l.src.rank}>${l.dst.rank}`) ?? `rank ${l.src.rank} → rank ${l.dst.rank} missing from the result's "${phase}"`);
}

/** The copy-engine phase of each link's host: its entry, or why there is none (the host's reason, a refused pair). */
function ceValues(links: Link[], ce: unknown, phase: keyof typeof NVLINK_PHASES): PartValue[] {
  if (!Array.isArray(ce)) return linkValues(links, NVLINK_CE[phase], () => "the result has no copy-engine phase (written by a workload without it)");
  const hosts = new Map(ce.map((h) => [String(obj(h).host), obj(h)]));
  return linkValues(links, NVLINK_CE[phase], (l) => {
    const h = hosts.get(l.src.host);
    if (!h) return `no copy-engine result from ${l.src.host}`;
    if (typeof h.why === "string") return h.why;
    const got = byPair(h[phase]).get(`${l.src.rank}>${l.dst.rank}`);
    if (!got) return `rank ${l.src.rank} → rank ${l.dst.rank} missing from ${l.src.host}'s copy-engine "${phase}"`;
    return typeof got.why === "string" ? got.why : got;
  });
}

/** Each link's value of `metric` from its entry (or the reason it has none), set on its component. */
function linkValues(links: Link[], metric: string, lookup: (l: Link) => Record<string, unknown> | string): PartValue[] {
  return links.map((l) => {
    const { component } = l;
    const found = lookup(l);
    const got = typeof found === "string" ? undefined : found;
    const value = num(got?.gbps);
    const why = typeof found === "string" ? found : "no GB/s in its entry";
    component.metrics[metric] = value;
    if (value === null) component.unmeasured![metric] = why;
    const shift = num(got?.shift) !== null ? `shift ${num(got?.shift)}, ` : "";
    const text = value === null ? why : `${gbps(value)} (${shift}best ${gbps(num(got?.best_gbps) ?? value)}, median ${gbps(num(got?.median_gbps) ?? value)})`;
    return { part: `${l.src.host} link ${component.part.name}`, value, why, text };
  });
}

/** The median link alone: a node whose links are all slow has a low median where the minimum alone could be one bad cable. */
function setMedian(m: Measurement, metric: string, rows: PartValue[], prefix: string): void {
  const gaps = rows.filter((r) => r.value === null);
  if (gaps.length) {
    m.metrics[metric] = null;
    m.unmeasured![metric] = gaps.map((r) => `${r.part}: ${r.why}`).join("; ");
    return;
  }
  const sorted = rows.map((r) => r.value as number).sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  m.metrics[metric] = sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
  m.details![metric] = `${prefix}the median of ${rows.length} ordered pairs, each timed alone`;
}
