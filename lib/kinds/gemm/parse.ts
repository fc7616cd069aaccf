// The gemm command's GPUCHECK_RESULT → metrics: per dtype the worst GPU's best and median TFLOP/s
// (every GPU named in the details, worst first), and how many ranks' checksums differ from their
// model's majority.
//
// A dtype that any rank could not run makes its metrics null with every rank's reason: the lowest
// of the GPUs that did run it would pass a node whose other GPUs were never measured.
import { ParseError } from "../../core/errors.ts";
import { GEMM_DTYPES, type GemmParams } from "./params.ts";
import type { ComponentValues, Measurement } from "../../core/types.ts";
import { componentPart, gpuPart as gemmPart, num, obj, type RankDevice, rankDevice, rankDevices } from "../../parsers/part.ts";
import { taggedLines } from "../../parsers/protocol.ts";

interface Rank extends RankDevice {
  dtypes: Record<string, unknown>;
  checksum: Record<string, unknown>;
  warmup: Record<string, unknown>;
}

/** How the sweep began: the warm-up every rank ran (or why one did not), so a figure read cold says so. */
function warmupNote(ranks: Rank[], asked: number | null): string {
  if (asked === null) return "";
  const odd = ranks.filter((r) => typeof r.warmup.skipped === "string");
  const shortest = Math.min(...ranks.map((r) => num(r.warmup.seconds) ?? 0));
  const head = asked > 0 ? `after a ${asked} s warm-up (shortest rank ${shortest.toFixed(1)} s)` : "no warm-up (warmupSeconds 0)";
  return `${head}${odd.length && asked > 0 ? `; ${odd.map((r) => `${gemmPart(r)}: ${String(r.warmup.skipped)}`).join("; ")}` : ""}; `;
}

/** Every rank's own best and median per dtype; a dtype it could not run is null with its reason. */
function gemmComponents(ranks: Rank[], dtypes: string[]): ComponentValues[] {
  return ranks.map((r) => {
    const c: ComponentValues = { part: componentPart(r), metrics: {} };
    const unmeasured: Record<string, string> = {};
    for (const d of dtypes) {
      const got = obj(r.dtypes[d]);
      for (const [metric, key] of [
        [`gemm_${d}_tflops`, "best_tflops"],
        [`gemm_${d}_median`, "median_tflops"],
      ] as const) {
        c.metrics[metric] = num(got[key]);
        if (c.metrics[metric] === null) unmeasured[metric] = typeof got.unmeasured === "string" ? got.unmeasured : `rank ${r.rank} reported no ${d} result`;
      }
    }
    if (Object.keys(unmeasured).length) c.unmeasured = unmeasured;
    return c;
  });
}

const flops = (tflops: number, cpu: boolean) => (cpu ? `${(tflops * 1e3).toPrecision(3)} GFLOP/s` : `${tflops.toFixed(1)} TFLOP/s`);

export function gemmMeasurement(output: string, params?: GemmParams): Measurement {
  const result = taggedLines(output, "RESULT").pop();
  if (!result) throw new ParseError("no GPUCHECK_RESULT line in rank 0's output: the gemm sweep did not finish");
  if (!Array.isArray(result.ranks) || result.ranks.length === 0) throw new ParseError("the gemm result lists no ranks");
  const ranks: Rank[] = (result.ranks as unknown[]).map((x, i) => {
    const { raw, ...r } = rankDevice(x, i);
    return { ...r, dtypes: obj(raw.dtypes), checksum: obj(raw.checksum), warmup: obj(raw.warmup) };
  });
  const warm = warmupNote(ranks, num(result.warmup_seconds));
  const cpu = ranks.some((r) => r.device.type !== "cuda");
  const m: Measurement = { metrics: {}, unmeasured: {}, details: {}, series: {}, raw: result, devices: rankDevices(ranks) };
  const set = (metric: string, value: number | null, detail?: string, reason?: string) => {
    m.metrics[metric] = value;
    if (value === null) m.unmeasured![metric] = reason ?? "not reported";
    if (detail) m.details![metric] = detail;
  };
  const wanted = params?.dtypes;
  for (const d of GEMM_DTYPES) {
    const best = `gemm_${d}_tflops_min`;
    const median = `gemm_${d}_median_min`;
    const rows = ranks.map((r) => ({ r, got: obj(r.dtypes[d]) }));
    const gaps = rows.filter(({ got }) => num(got.best_tflops) === null || num(got.median_tflops) === null);
    if (ranks.every((r) => r.dtypes[d] === undefined)) {
      // a dtype the test did not ask for has no metrics (validate rejects thresholds on it)
      if (wanted?.includes(d)) for (const metric of [best, median]) set(metric, null, undefined, `no rank reported ${d}`);
      continue;
    }
    if (gaps.length) {
      const why = gaps.map(({ r, got }) => `${gemmPart(r)}: ${typeof got.unmeasured === "string" ? got.unmeasured : `no ${d} result`}`).join("; ");
      for (const metric of [best, median]) set(metric, null, undefined, why);
      continue;
    }
    const measured = rows.map(({ r, got }) => ({
      r,
      best: got.best_tflops as number,
      median: got.median_tflops as number,
      n: num(got.best_n),
      shapes: Array.isArray(got.shapes) ? got.shapes.map(obj) : [],
    }));
    measured.sort((a, b) => a.best - b.best);
    const device = (cpu ? "device: cpu; " : "") + warm;
    const line = (x: (typeof measured)[number]) => `${gemmPart(x.r)}: best ${flops(x.best, cpu)} at ${x.n ?? "?"}³, median ${flops(x.median, cpu)}`;
    set(best, measured[0]!.best, device + measured.map(line).join("; "));
    const byMedian = [...measured].sort((a, b) => a.median - b.median);
    set(median, byMedian[0]!.median, device + byMedian.map(line).join("; "));
    for (const x of measured) {
      m.series![`${d} ${gemmPart(x.r)}`] = x.shapes.flatMap((s) => (num(s.n) !== null && num(s.tflops) !== null ? [{ x: s.n as number, y: s.tflops as number }] : []));
    }
  }
  checksumMetric(ranks, obj(result.checksum), set);
  const reported = GEMM_DTYPES.filter((d) => wanted?.includes(d) || ranks.some((r) => r.dtypes[d] !== undefined));
  if (reported.length) m.components = gemmComponents(ranks, reported);
  return m;
}

/** One rank's own TFLOP/s per dtype it reported (gemm_bf16_tflops, gemm_bf16_median), or why not. */
function checksumMetric(ranks: Rank[], summary: Record<string, unknown>, set: (metric: string, value: number | null, detail?: string, reason?: string) => void) {
  const metric = "gemm_checksum_mismatches";
  const unhashed = ranks.filter((r) => typeof r.checksum.sha256 !== "string");
  if (unhashed.length) return set(metric, null, undefined, `no checksum from ${unhashed.map(gemmPart).join("; ")}`);
  if (!Array.isArray(summary.mismatched_ranks)) return set(metric, null, undefined, "the result does not say which ranks' checksums differ");
  const bad = new Set(summary.mismatched_ranks as number[]);
  const notes = Array.isArray(summary.notes) ? (summary.notes as string[]) : [];
  const first = ranks[0]!.checksum;
  const what = `${String(first.dtype)} ${String(first.n)}³ product of identical seeded inputs`;
  const hash = (r: Rank) => String(r.checksum.sha256).slice(0, 12);
  const odd = ranks.filter((r) => bad.has(r.rank));
  const same = ranks.filter((r) => !bad.has(r.rank));
  const detail = odd.length
    ? `${odd.map((r) => `${gemmPart(r)}: sha256 ${hash(r)}…`).join("; ")} ${odd.length === 1 ? "differs from the majority of its" : "differ from the majority of their"} model (${same.length ? `${hash(same[0]!)}… on ${same.length} rank${same.length === 1 ? "" : "s"}` : "none"}) for the ${what}${notes.length ? `; ${notes.join("; ")}` : ""}`
    : `all ${ranks.length} ranks hashed the ${what} alike`;
  set(metric, odd.length, detail);
}
