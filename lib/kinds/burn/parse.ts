// The burn command's GPUCHECK_RESULT → metrics: each rank's stability (coefficient of variation and
// max/avg of its own iteration times), stragglers by the rule below, the slowdown from the first to
// the last span of the run, each rank's sustained GEMM TFLOP/s as a component, and the rate of clock
// events from the telemetry the logs carry.
import { ParseError } from "../../core/errors.ts";
import type { ComponentValues, Measurement } from "../../core/types.ts";
import { clockEventRate } from "./parse-clock.ts";
import { gpuLoad, rankChecksum, telemetrySamples } from "./parse-gpu.ts";
import { componentPart, gpuPart, num, obj, rankDevice, rankDevices } from "../../parsers/part.ts";
import { taggedLines } from "../../parsers/protocol.ts";

// A rank is a straggler when its iteration times vary by more than 5 % (coefficient of variation) or
// its slowest iteration exceeds 1.5 × its mean. Issue 15 ("burn") gives this rule as the nccl-tests
// analyzer's; NVIDIA/nccl-tests has no analyzer and no such rule (README and sources @01d6761), and
// no other published origin was found, so the issue is its only source.
export const STRAGGLER_CV = 0.05;
export const STRAGGLER_MAX_AVG = 1.5;

const pct = (v: number) => `${v.toFixed(1)} %`;

interface RankStats {
  part: string;
  cv: number | null;
  maxAvg: number | null;
  slowdown: number | null;
  why?: string;
  slowWhy?: string;
  text: string;
}

function rankStats(r: ReturnType<typeof rankDevice>): RankStats & { tflops: number | null; gbps: number | null } {
  const raw = r.raw;
  const part = gpuPart(r);
  const it = obj(raw.iteration);
  const n = num(it.n) ?? 0;
  const mean = num(it.mean_s);
  const std = num(it.std_s);
  const max = num(it.max_s);
  const tflops = num(raw.gemm_tflops);
  const gbps = num(raw.copy_gbps);
  const edges = obj(raw.edges);
  const first = num(obj(edges.first).gemm_tflops);
  const last = num(obj(edges.last).gemm_tflops);
  const span = num(edges.span_s);
  const why =
    typeof raw.unmeasured === "string"
      ? raw.unmeasured
      : n < 2 || mean === null || !(mean > 0) || std === null || max === null
        ? `${n} timed iteration${n === 1 ? "" : "s"}: no variation to measure`
        : undefined;
  const cv = why ? null : std! / mean!;
  const maxAvg = why ? null : max! / mean!;
  const slowWhy = first === null || last === null ? (why ?? `no iteration in the ${first === null ? "first" : "last"} ${span ?? "?"} s of the run`) : undefined;
  const slowdown = slowWhy ? null : (1 - last! / first!) * 100;
  const text = why
    ? why
    : `CV ${pct(cv! * 100)}, max/avg ${maxAvg!.toFixed(2)} over ${n} iterations (mean ${(mean! * 1e3).toFixed(2)} ms, max ${(max! * 1e3).toFixed(2)} ms)` +
      (slowdown === null ? "" : `, GEMM ${first!.toPrecision(4)} → ${last!.toPrecision(4)} TFLOP/s first vs last ${span} s`);
  return { part, cv, maxAvg, slowdown, why, slowWhy, text, tflops, gbps };
}

export function burnMeasurement(output: string, logs?: string[]): Measurement {
  const result = taggedLines(output, "RESULT").pop();
  if (!result) throw new ParseError("no GPUCHECK_RESULT line in rank 0's output: the burn run did not finish");
  if (!Array.isArray(result.ranks) || result.ranks.length === 0) throw new ParseError("the burn result lists no ranks");
  const ranks = (result.ranks as unknown[]).map((x, i) => rankDevice(x, i));
  const stats = ranks.map(rankStats);
  const m: Measurement = { metrics: {}, unmeasured: {}, details: {}, raw: result, components: [], devices: rankDevices(ranks) };
  const set = (metric: string, value: number | null, detail: string | undefined, why: string | undefined) => {
    m.metrics[metric] = value;
    if (value === null) m.unmeasured![metric] = why ?? "not reported";
    else if (detail) m.details![metric] = detail;
  };
  const gaps = stats.filter((s) => s.why).map((s) => `${s.part}: ${s.why}`);
  const gapWhy = gaps.length ? gaps.join("; ") : undefined;

  const stragglers = stats.filter((s) => s.cv !== null && (s.cv > STRAGGLER_CV || s.maxAvg! > STRAGGLER_MAX_AVG));
  const rule = `CV > ${STRAGGLER_CV * 100} % or max/avg > ${STRAGGLER_MAX_AVG}`;
  set("burn_stragglers", gapWhy ? null : stragglers.length, stragglers.length ? `${rule}: ${stragglers.map((s) => `${s.part}: ${s.text}`).join("; ")}` : `none (${rule})`, gapWhy);
  const byCv = [...stats].sort((a, b) => (b.cv ?? 0) - (a.cv ?? 0));
  set("burn_iter_cv_max", gapWhy ? null : byCv[0]!.cv! * 100, byCv.map((s) => `${s.part}: ${s.text}`).join("; "), gapWhy);

  const slowGaps = stats.filter((s) => s.slowWhy).map((s) => `${s.part}: ${s.slowWhy}`);
  const bySlow = [...stats].sort((a, b) => (b.slowdown ?? 0) - (a.slowdown ?? 0));
  set(
    "burn_slowdown_pct",
    slowGaps.length ? null : bySlow[0]!.slowdown,
    bySlow.map((s) => `${s.part}: ${s.slowdown === null ? s.slowWhy : `${pct(s.slowdown)} slower`}`).join("; "),
    slowGaps.join("; "),
  );

  const texts = logs?.length ? logs : [output];
  const clock = clockEventRate(texts);
  set("burn_clock_events_rate", clock.value, clock.detail, clock.why);

  // silent data corruption under load: every rank's mismatched checks, summed; each GPU named
  const sums = ranks.map((r) => rankChecksum(r.raw));
  const sumGaps = sums.flatMap((c, i) => (c.why ? [`${stats[i]!.part}: ${c.why}`] : []));
  const odd = sums.flatMap((c, i) => (c.mismatches ? [`${stats[i]!.part}: ${c.text}`] : []));
  const every = num(result.checksum_every);
  set(
    "burn_checksum_mismatches",
    sumGaps.length ? null : sums.reduce((a, c) => a + c.mismatches!, 0),
    odd.length ? odd.join("; ") : `none: every rank's product of identical seeded inputs, every ${every ?? "?"} iterations, matched its own first and its model's majority`,
    sumGaps.join("; "),
  );
  const samples = telemetrySamples(texts);

  m.components = ranks.map((r, i): ComponentValues => {
    const s = stats[i]!;
    const load = gpuLoad(samples, r);
    const sum = sums[i]!;
    const c: ComponentValues = {
      part: componentPart(r),
      metrics: {
        burn_iter_cv: s.cv === null ? null : s.cv * 100,
        burn_iter_max_avg: s.maxAvg,
        burn_gemm_tflops: s.tflops,
        burn_copy_gbps: s.gbps,
        burn_gemm_slowdown_pct: s.slowdown,
        burn_gpu_checksum_mismatches: sum.mismatches,
        ...load.values,
      },
      unmeasured: { ...load.unmeasured },
    };
    for (const [k, v] of Object.entries(c.metrics)) {
      if (v !== null || c.unmeasured![k]) continue;
      c.unmeasured![k] = (k === "burn_gemm_slowdown_pct" ? s.slowWhy : k === "burn_gpu_checksum_mismatches" ? sum.why : s.why) ?? "no iteration timed";
    }
    return c;
  });
  return m;
}
