// The pcie command's GPUCHECK_RESULT → metrics: per operation (h2d, d2h, bidir) and phase (one GPU
// at a time, all at once) the worst GPU's best GB/s, every GPU named worst first; the links below
// their maximum and the replays gained (lib/kinds/pcie/parse-link.ts); each GPU's and NIC's own values
// as components.
import { ParseError } from "../../core/errors.ts";
import { PCIE_OPS, PCIE_PHASES } from "./params.ts";
import type { ComponentValues, Measurement } from "../../core/types.ts";
import { gbps, setLowest } from "../../parsers/lowest.ts";
import { componentPart, gpuPart, num, obj, rankDevice, rankDevices } from "../../parsers/part.ts";
import { type LinkRank, linkMetrics } from "./parse-link.ts";
import { taggedLines } from "../../parsers/protocol.ts";

/** the metric of an operation in a phase: pcie_h2d_gbps (solo), pcie_h2d_all_gbps; `_min` for the test's */
export const pcieMetric = (op: string, phase: string) => `pcie_${op}${phase === "all" ? "_all" : ""}_gbps`;

/** `hcas`: the compute HCAs whose links are judged (pcie.hcas); the others are recorded only. */
export function pcieMeasurement(output: string, hcas?: string[]): Measurement {
  const result = taggedLines(output, "RESULT").pop();
  if (!result) throw new ParseError("no GPUCHECK_RESULT line in rank 0's output: the pcie run did not finish");
  if (!Array.isArray(result.ranks) || result.ranks.length === 0) throw new ParseError("the pcie result lists no ranks");
  const ranks: Array<LinkRank & { phases: Record<string, Record<string, unknown>> }> = (result.ranks as unknown[]).map((x, i) => {
    const { raw, ...r } = rankDevice(x, i);
    const component: ComponentValues = { part: componentPart(r), metrics: {}, unmeasured: {} };
    return { ...r, raw, link: obj(raw.link), nics: raw.nics, component, phases: { solo: obj(raw.solo), all: obj(raw.all) } };
  });
  const cpu = ranks.some((r) => r.device.type !== "cuda");
  const m: Measurement = { metrics: {}, unmeasured: {}, details: {}, raw: result, components: ranks.map((r) => r.component), devices: rankDevices(ranks) };
  const prefix = cpu ? "device: cpu — host memory copy, no PCIe link crossed; " : "";
  for (const phase of PCIE_PHASES) {
    for (const op of PCIE_OPS) {
      const own = pcieMetric(op, phase);
      const rows = ranks.map((r) => {
        const got = obj(r.phases[phase]![op]);
        const why = typeof got.unmeasured === "string" ? got.unmeasured : `no ${op} result (${phase === "all" ? "all GPUs at once" : "alone"})`;
        const best = num(got.best_gbps);
        const median = num(got.median_gbps);
        r.component.metrics[own] = best;
        if (best === null) r.component.unmeasured![own] = why;
        return { part: gpuPart(r), value: best, why, text: best !== null && median !== null ? `best ${gbps(best)}, median ${gbps(median)}` : why };
      });
      setLowest(m, `${own}_min`, rows, prefix);
    }
  }
  linkMetrics(m, ranks, hcas);
  return m;
}
