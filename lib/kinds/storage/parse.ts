// The storage command's GPUCHECK_RESULT → metrics. Each rank's path is a part ("disk": the path with
// the device and filesystem behind it), carrying its own figures so an outlier rule names the slow
// disk; the test's metrics are the worst part's, with every part named in the details, or null with
// every gap's reason. The checkpoint burst adds each rank's write and read on its shared part and the
// aggregate: all ranks' bytes over the slowest rank's wall time from the common start.
import { ParseError } from "../../core/errors.ts";
import type { ComponentValues, Measurement, PartId } from "../../core/types.ts";
import { setLowest, type PartValue } from "../../parsers/lowest.ts";
import { num, obj } from "../../parsers/part.ts";
import { taggedLines } from "../../parsers/protocol.ts";
import { partName } from "../../core/parts.ts";

export const ROLES = ["local", "shared"] as const;
export type Role = (typeof ROLES)[number];

/** fio job → [figure, component metric suffix, unit scale to the metric's unit, higher is better] */
export const JOBS = [
  ["seq_write", "mbps", "write_gbyte_s", 1e-3, true, "GB/s"],
  ["seq_read", "mbps", "read_gbyte_s", 1e-3, true, "GB/s"],
  ["rand_read", "iops", "randread_iops", 1, true, "IOPS"],
  ["rand_read", "clat_p99_us", "randread_p99_us", 1, false, "µs"],
] as const;

type Obj = Record<string, unknown>;

/** "local /mnt/nvme0 on /dev/nvme0n1 (259:0, ext4)": the path and what is behind it. */
export function diskName(role: string, path: string, device: Obj): string {
  const src = typeof device.source === "string" ? device.source : "unknown device";
  const extra = [device.majmin, device.fstype].filter((v) => typeof v === "string").join(", ");
  return `${role} ${path} on ${src}${extra ? ` (${extra})` : ""}`;
}

export function storageMeasurement(output: string): Measurement {
  const result = taggedLines(output, "RESULT").pop();
  if (!result) throw new ParseError("no GPUCHECK_RESULT line in rank 0's output: the storage run did not finish");
  if (!Array.isArray(result.ranks) || result.ranks.length === 0) throw new ParseError("the storage result lists no ranks");
  const m: Measurement = { metrics: {}, unmeasured: {}, details: {}, raw: result, components: [] };
  const ranks = (result.ranks as unknown[]).map((x, i) => {
    const r = obj(x);
    return { rank: num(r.rank) ?? i, host: typeof r.host === "string" ? r.host : "unknown host", targets: obj(r.targets), checkpoint: r.checkpoint ? obj(r.checkpoint) : null };
  });
  const partOf = new Map<string, ComponentValues>();
  for (const role of ROLES) {
    const rows = ranks.flatMap((r) => {
      if (!Object.hasOwn(r.targets, role)) return [];
      const t = obj(r.targets[role]);
      const path = typeof t.path === "string" ? t.path : "?";
      const part: PartId = { type: "disk", host: r.host, rank: r.rank, name: diskName(role, path, obj(t.device)) };
      const c: ComponentValues = { part, metrics: {}, unmeasured: {}, details: {} };
      if (typeof t.io === "string") c.details![`storage_${role}_io`] = t.io;
      m.components!.push(c);
      partOf.set(`${r.rank}/${role}`, c);
      return [{ t, c }];
    });
    if (rows.length === 0) continue;
    for (const [job, figure, suffix, scale, higher, unit] of JOBS) {
      const own = `storage_${role}_${suffix}`;
      const values: PartValue[] = rows.map(({ t, c }) => {
        const got = obj(t[job]);
        const why = typeof t.unmeasured === "string" ? t.unmeasured : typeof got.unmeasured === "string" ? got.unmeasured : `no ${job} result`;
        const raw = num(got[figure]);
        const value = raw === null ? null : Number((raw * scale).toPrecision(9));
        c.metrics[own] = value;
        if (value === null) c.unmeasured![own] = why;
        return { part: partName(c.part), value, why, text: value === null ? why : `${value} ${unit}` };
      });
      if (higher) setLowest(m, `${own}_min`, values);
      else setHighest(m, `${own}_max`, values);
    }
  }
  checkpointMetrics(m, ranks, partOf);
  return m;
}

/** The highest value over the parts (a latency), every part named worst first, or null with the gaps. */
function setHighest(m: Measurement, metric: string, rows: PartValue[]): void {
  const flipped = rows.map((r) => ({ ...r, value: r.value === null ? null : -r.value }));
  setLowest(m, metric, flipped);
  if (m.metrics[metric] !== null) m.metrics[metric] = -(m.metrics[metric] as number);
}

function checkpointMetrics(m: Measurement, ranks: Array<{ rank: number; host: string; checkpoint: Obj | null }>, partOf: Map<string, ComponentValues>): void {
  const burst = ranks.filter((r) => r.checkpoint);
  if (burst.length === 0) return;
  for (const phase of ["write", "read"] as const) {
    const total = `storage_checkpoint_${phase}_total_gbyte_s`;
    const own = `storage_checkpoint_${phase}_gbyte_s`;
    const gaps: string[] = [];
    let bytes = 0;
    let slowest = 0;
    const lines: string[] = [];
    for (const r of burst) {
      const c = partOf.get(`${r.rank}/shared`);
      const where = c ? partName(c.part) : `${r.host} rank ${r.rank}`;
      const cp = r.checkpoint!;
      const got = obj(cp[phase]);
      const why = typeof cp.unmeasured === "string" ? cp.unmeasured : typeof got.unmeasured === "string" ? got.unmeasured : `no checkpoint ${phase} result`;
      const moved = num(got.io_bytes);
      const wall = num(got.wall_s);
      const rate = moved !== null && wall !== null && wall > 0 ? Number((moved / wall / 1e9).toPrecision(9)) : null;
      if (c) {
        c.metrics[own] = rate;
        if (rate === null) c.unmeasured![own] = why;
      }
      if (rate === null) {
        gaps.push(`${where}: ${why}`);
        continue;
      }
      bytes += moved!;
      slowest = Math.max(slowest, wall!);
      lines.push(`${where}: ${moved} bytes in ${wall!.toFixed(3)} s`);
    }
    if (gaps.length) {
      m.metrics[total] = null;
      m.unmeasured![total] = gaps.join("; ");
      continue;
    }
    m.metrics[total] = Number((bytes / slowest / 1e9).toPrecision(9));
    m.details![total] = `${burst.length} ranks at once, ${bytes} bytes over the slowest rank's ${slowest.toFixed(3)} s; ${lines.join("; ")}`;
  }
}
