// The nvlink command's GPUCHECK_RESULT → metrics: every ordered pair of ranks on one host is a link,
// named by its two ends (host, GPU index, UUID, PCI bus of each); the worst pair alone and the median
// pair, the worst link with all pairs at once, and each link's own values as a component, so the
// outlier rule can name a degraded link against the node's other links.
import { ParseError } from "../core/errors.ts";
import type { ComponentValues, Measurement, PartId } from "../core/types.ts";
import { gbps, type PartValue, setLowest } from "./lowest.ts";
import { gpuPart, num, obj, type RankDevice, rankDevice } from "./part.ts";
import { taggedLines } from "./protocol.ts";

/** the result's phase → the component metric of each link in it */
export const NVLINK_PHASES = { pairs: "nvlink_link_gbps", all: "nvlink_link_all_gbps" } as const;

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
  const m: Measurement = { metrics: {}, unmeasured: {}, details: {}, raw: result, components: links.map((l) => l.component) };
  if (links.length === 0) {
    const why = `no two ranks share a host (${ranks.map((r) => `rank ${r.rank} on ${r.host}`).join(", ")}): a link joins two GPUs of one node`;
    for (const metric of ["nvlink_pair_gbps_min", "nvlink_pair_gbps_median", "nvlink_all_gbps_min"]) {
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
  return m;
}

/** One phase's GB/s of every expected link, set on its component; a link the result lacks is null with why. */
function phaseValues(links: Link[], entries: unknown, phase: keyof typeof NVLINK_PHASES): PartValue[] {
  const timed = new Map<string, Record<string, unknown>>();
  for (const e of Array.isArray(entries) ? entries : []) {
    const x = obj(e);
    timed.set(`${num(x.src)}>${num(x.dst)}`, x);
  }
  const metric = NVLINK_PHASES[phase];
  return links.map(({ src, dst, component }) => {
    const got = timed.get(`${src.rank}>${dst.rank}`);
    const value = num(got?.gbps);
    const why = got ? "no GB/s in its entry" : `rank ${src.rank} → rank ${dst.rank} missing from the result's "${phase}"`;
    component.metrics[metric] = value;
    if (value === null) component.unmeasured![metric] = why;
    const shift = phase === "all" && num(got?.shift) !== null ? `shift ${num(got?.shift)}, ` : "";
    const text = value === null ? why : `${gbps(value)} (${shift}best ${gbps(num(got?.best_gbps) ?? value)}, median ${gbps(num(got?.median_gbps) ?? value)})`;
    return { part: `${src.host} link ${component.part.name}`, value, why, text };
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
