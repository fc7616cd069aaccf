// A collective with `rails:` (workload/gpucheck_workload/collective_rails.py: the sweep once per HCA,
// each run a child process with NCCL_IB_HCA==<hca>) → one nic part per rail, named by the HCA, with
// that run's busbw at the largest size and NCCL's account of its connections; and the test's own
// metrics as the worst rail's. Each rank's log is cut at its `GPUCHECK_RAIL` lines; a rail's busbw
// counts only when every rank's NCCL INFO lines show its bytes on NET/IB through that HCA alone.
import { ParseError } from "../core/errors.ts";
import type { ComponentValues, Measurement, TransportSummary } from "../core/types.ts";
import { formatBytes } from "../core/quantity.ts";
import { type PartValue, setLowest } from "./lowest.ts";
import { parseNccl } from "./nccl.ts";
import { ncclMeasurement } from "./nccl-measurement.ts";
import { hcaRoute, ibAccount, transportFromLogs } from "./nccl-transport.ts";
import { parseTagged } from "./protocol.ts";

type Obj = Record<string, unknown>;

interface Section {
  host?: string;
  lines: string[];
  end?: Obj;
}

interface RankRails {
  sections: Map<string, Section>;
  done?: Obj;
}

/** One rank's text cut at its GPUCHECK_RAIL lines: each rail's lines, how it ended, and the closing line. */
export function railSections(text: string): RankRails {
  const out: RankRails = { sections: new Map() };
  let current: Section | null = null;
  for (const line of text.split("\n")) {
    const t = line.includes("GPUCHECK_RAIL ") ? parseTagged(line) : null;
    if (t?.tag !== "RAIL") {
      current?.lines.push(line);
      continue;
    }
    const v = t.value;
    if (v.done === true) out.done = v;
    else if (typeof v.rail === "string" && v.end === true) {
      const s = out.sections.get(v.rail);
      if (s) s.end = v;
      current = null;
    } else if (typeof v.rail === "string") {
      current = { lines: [], ...(typeof v.host === "string" && { host: v.host }) };
      out.sections.set(v.rail, current);
    }
  }
  return out;
}

const str = (v: unknown): string | null => (typeof v === "string" ? v : null);

interface Rail {
  rail: string;
  hosts: string[];
  m?: Measurement;
  why?: string;
  transport?: TransportSummary;
  transportWhy?: string;
  text: string;
}

/** Why rank 0's run of this rail gave no usable table, or its measurement. */
function railTable(rail: string, s: Section | undefined): { m?: Measurement; why?: string } {
  if (!s) return { why: `rank 0 never started rail ${rail}: the run ended before it` };
  const refused = str(s.end?.why);
  if (refused) return { why: refused };
  const report = parseNccl(s.lines.join("\n"));
  if (report.rows.length === 0) return { why: `no nccl-tests rows for rail ${rail}${report.failure ? `: ${report.failure}` : ""}` };
  if (!report.complete) return { why: `rail ${rail}'s table ended before its footer${report.failure ? `: ${report.failure}` : s.end ? "" : " (the run ended during this rail)"}` };
  const rc = s.end?.rc;
  // nccl-tests (and the workload) exit 7 when the data check found wrong values: the table still stands
  if (typeof rc === "number" && rc !== 0 && rc !== 7) return { why: `rail ${rail}'s run exited with code ${rc} after its table` };
  return { m: ncclMeasurement(report) };
}

/** Every rank's account of one rail: whether its bytes crossed that HCA alone, and the merged account. */
function railRoute(rail: string, ranks: RankRails[]): { why?: string; transport?: TransportSummary; transportWhy?: string } {
  const texts = ranks.map((r) => r.sections.get(rail)).filter((s): s is Section => s !== undefined);
  const merged = transportFromLogs(texts.map((s) => s.lines.join("\n")));
  const whys: string[] = [];
  for (const s of texts) {
    const own = transportFromLogs([s.lines.join("\n")]);
    const who = s.host ?? "a rank";
    const wrong = own.unmeasured ?? (own.transport ? hcaRoute(own.transport, rail) : null);
    if (wrong) whys.push(`${who}: NCCL INFO: ${wrong}`);
  }
  return {
    ...(whys.length && { why: [...new Set(whys)].join("; ") }),
    ...(merged.transport && { transport: merged.transport }),
    ...(merged.unmeasured && { transportWhy: merged.unmeasured }),
  };
}

function readRail(rail: string, own: RankRails, ranks: RankRails[]): Rail {
  const hosts = [...new Set(ranks.map((r) => r.sections.get(rail)?.host).filter((h): h is string => h !== undefined))];
  const table = railTable(rail, own.sections.get(rail));
  if (!table.m) return { rail, hosts, why: table.why, transportWhy: table.why, text: "" };
  const route = railRoute(rail, ranks);
  const busbw = table.m.metrics.busbw ?? null;
  const size = table.m.bySize?.busbw?.at(-1)?.[0];
  const account = route.transport ? ibAccount(route.transport) : "no NCCL account";
  const text = `${busbw} GB/s busbw${size === undefined ? "" : ` at ${formatBytes(size)}`} through ${rail} alone (NCCL_IB_HCA==${rail}; ${account})`;
  return { rail, hosts, m: table.m, text, ...route, ...(busbw === null && !route.why && { why: `rail ${rail}'s table has no busbw at its largest size` }) };
}

function part(r: Rail): ComponentValues {
  const ok = r.m && !r.why;
  return {
    part: { type: "nic", host: r.hosts.join(", ") || "unknown host", name: r.rail },
    metrics: { rail_busbw: ok ? (r.m!.metrics.busbw ?? null) : null },
    unmeasured: {
      ...(!ok && { rail_busbw: r.why ?? "not measured" }),
      ...(r.transportWhy && { transport: r.transportWhy }),
    },
    ...(ok && { details: { rail_busbw: r.text } }),
    ...(r.transport && { transport: r.transport }),
  };
}

export function railsMeasurement(output: string, logs: string[] | undefined): Measurement {
  const own = railSections(output);
  if (!own.done && own.sections.size === 0) throw new ParseError("no GPUCHECK_RAIL line in rank 0's output: the rails run did not start");
  const ranks = (logs?.some((l) => l !== "") ? logs : [output]).map(railSections);
  const names = Array.isArray(own.done?.rails) ? (own.done.rails as string[]) : [...own.sections.keys()];
  const rails = names.map((rail) => readRail(rail, own, ranks));
  const m: Measurement = {
    metrics: { complete: own.done ? 1 : 0 },
    unmeasured: {},
    details: {},
    components: rails.map(part),
    raw: { rails: rails.map((r) => ({ rail: r.rail, hosts: r.hosts, report: r.m?.raw ?? null, why: r.why ?? null })) },
  };
  const noRail = str(own.done?.why);
  if (noRail) {
    for (const k of ["busbw", "busbw_peak", "busbw_avg", "wrong", "out_of_bounds", "rail_busbw", "transport"]) {
      if (k !== "transport") m.metrics[k] = null;
      m.unmeasured![k] = noRail;
    }
    return m;
  }
  const rows = (metric: string, fmt: (v: number) => string): PartValue[] =>
    rails.map((r) => {
      const v = r.why ? null : (r.m?.metrics[metric] ?? null);
      return { part: `rail ${r.rail}`, value: v, ...(r.why && { why: r.why }), text: v === null ? "" : metric === "busbw" ? r.text : fmt(v) };
    });
  setLowest(m, "busbw", rows("busbw", String));
  setLowest(
    m,
    "busbw_peak",
    rows("busbw_peak", (v) => `${v} GB/s`),
  );
  setLowest(
    m,
    "busbw_avg",
    rows("busbw_avg", (v) => `${v} GB/s`),
  );
  for (const k of ["wrong", "out_of_bounds"]) sumOver(m, k, rails);
  const all = transportFromLogs(ranks.flatMap((r) => [...r.sections.values()].map((s) => s.lines.join("\n"))));
  if (all.transport) m.transport = all.transport;
  if (all.unmeasured) m.unmeasured!.transport = all.unmeasured;
  if (rails.every((r) => r.m && !r.why)) m.bySize = worstBySize(rails.map((r) => r.m!));
  return m;
}

/** A count over every rail (wrong values, out-of-bounds checks); null with the reasons when any rail has none. */
function sumOver(m: Measurement, metric: string, rails: Rail[]): void {
  const gaps = rails.filter((r) => !r.m || typeof r.m.metrics[metric] !== "number");
  if (gaps.length) {
    m.metrics[metric] = null;
    m.unmeasured![metric] = gaps.map((r) => `rail ${r.rail}: ${r.why ?? `no ${metric} in its table`}`).join("; ");
    return;
  }
  m.metrics[metric] = rails.reduce((n, r) => n + (r.m!.metrics[metric] as number), 0);
}

/** Per size, the worst rail: the lowest busbw and algbw, the longest time, over the sizes every rail measured. */
function worstBySize(ms: Measurement[]): Record<string, Array<[number, number | null]>> {
  const out: Record<string, Array<[number, number | null]>> = {};
  for (const [metric, worse] of [
    ["busbw", Math.min],
    ["algbw", Math.min],
    ["time_us", Math.max],
  ] as const) {
    const first = ms[0]!.bySize?.[metric] ?? [];
    out[metric] = first
      .map(([size]): [number, number | null] => {
        const vs = ms.map((x) => x.bySize?.[metric]?.find((r) => r[0] === size)?.[1]);
        return [size, vs.every((v) => typeof v === "number") ? worse(...(vs as number[])) : null];
      })
      .filter(([size]) => ms.every((x) => x.bySize?.[metric]?.some((r) => r[0] === size)));
  }
  return out;
}
