// The membw command's GPUCHECK_RESULT → metrics: per operation (copy, triad) the worst GPU's best and
// median GB/s, every GPU named in the details worst first, and each GPU's own values as a component.
import { ParseError } from "../../core/errors.ts";
import { MEMBW_OPS } from "./params.ts";
import type { ComponentValues, Measurement } from "../../core/types.ts";
import { gbps, setLowest } from "../../parsers/lowest.ts";
import { componentPart, gpuPart, num, obj, rankDevice, rankDevices } from "../../parsers/part.ts";
import { taggedLines } from "../../parsers/protocol.ts";

/** per-GPU statistic → [the test's metric, the component's metric] */
const STATS = { best_gbps: ["gbps_min", "gbps"], median_gbps: ["median_min", "median"] } as const;

export function membwMeasurement(output: string): Measurement {
  const result = taggedLines(output, "RESULT").pop();
  if (!result) throw new ParseError("no GPUCHECK_RESULT line in rank 0's output: the membw run did not finish");
  if (!Array.isArray(result.ranks) || result.ranks.length === 0) throw new ParseError("the membw result lists no ranks");
  const ranks = (result.ranks as unknown[]).map((x, i) => {
    const { raw, ...r } = rankDevice(x, i);
    return { ...r, ops: obj(raw.ops) };
  });
  const cpu = ranks.some((r) => r.device.type !== "cuda");
  const m: Measurement = { metrics: {}, unmeasured: {}, details: {}, raw: result, components: [], devices: rankDevices(ranks) };
  const components: ComponentValues[] = ranks.map((r) => ({ part: componentPart(r), metrics: {}, unmeasured: {} }));
  for (const op of MEMBW_OPS) {
    const rows = ranks.map((r, i) => {
      const got = obj(r.ops[op]);
      const why = typeof got.unmeasured === "string" ? got.unmeasured : `no ${op} result`;
      const best = num(got.best_gbps);
      const median = num(got.median_gbps);
      const text = best !== null && median !== null ? `best ${gbps(best)}, median ${gbps(median)}` : why;
      return { r, got, why, text, c: components[i]! };
    });
    for (const [stat, [total, own]] of Object.entries(STATS)) {
      const values = rows.map((x) => ({ part: gpuPart(x.r), value: num(x.got[stat]), why: x.why, text: x.text }));
      setLowest(m, `membw_${op}_${total}`, values, cpu ? "device: cpu (host memory, no HBM); " : "");
      values.forEach((v, i) => {
        const c = rows[i]!.c;
        c.metrics[`membw_${op}_${own}`] = v.value;
        if (v.value === null) c.unmeasured![`membw_${op}_${own}`] = v.why;
      });
    }
  }
  m.components = components;
  return m;
}
