// The dcgm command's GPUCHECK_RESULT → metrics: DCGM's failed, warned and skipped results counted over
// the node's GPUs, each named by host, index, UUID and PCI bus (nvidia-smi -q of the same run) with the
// test, DCGM's text and its DCGM_FR code; each GPU's own failure count as a component, with DCGM's
// text and codes for its failures beside it (quoted by the GPU's own failing check). When dcgmi
// could not be run or read, every metric is null with that reason: an absent DCGM is never a pass.
import { ParseError } from "../../core/errors.ts";
import { partName } from "../../core/parts.ts";
import type { ComponentValues, Measurement, PartId } from "../../core/types.ts";
import { type DcgmResult, readDcgmDoc } from "./doc.ts";
import { num, obj } from "../../parsers/part.ts";
import { taggedLines } from "../../parsers/protocol.ts";

export const DCGM_METRICS = ["dcgm_failures", "dcgm_warnings", "dcgm_skipped"] as const;
export const DCGM_GPU_METRIC = "dcgm_gpu_failures";

export function dcgmMeasurement(output: string): Measurement {
  const result = taggedLines(output, "RESULT").pop();
  if (!result) throw new ParseError("no GPUCHECK_RESULT line in rank 0's output: the dcgm run did not finish");
  const host = typeof result.host === "string" ? result.host : "unknown host";
  const m: Measurement = { metrics: {}, unmeasured: {}, details: {}, raw: result };
  const doc = typeof result.unread === "string" ? { unread: result.unread } : readDcgmDoc(result.document);
  if ("unread" in doc) return unmeasuredAll(m, doc.unread);

  const inventory = new Map<number, Record<string, unknown>>();
  for (const g of Array.isArray(result.gpus) ? result.gpus.map(obj) : []) {
    const index = num(g.index);
    if (index !== null) inventory.set(index, g);
  }
  // DCGM's GPU id is NVML's index, the index nvidia-smi prints
  const gpuPart = (id: number): PartId => {
    const g = inventory.get(id) ?? {};
    const part: PartId = { type: "gpu", host, index: id };
    if (typeof g.uuid === "string") part.uuid = g.uuid;
    if (typeof g.pci_bus_id === "string") part.pciBusId = g.pci_bus_id;
    if (typeof g.name === "string") part.name = g.name;
    return part;
  };
  const where = (r: DcgmResult) => (r.group === "GPU" && r.id !== null ? partName(gpuPart(r.id)) : r.id === null ? `${host} (all GPUs DCGM tested)` : `${host} ${r.group} ${r.id}`);
  const line = (r: DcgmResult) => `${where(r)}: ${r.test} ${r.rawStatus}${r.messages.length ? ` — ${r.messages.join(" | ")}` : ""}`;
  const source = `DCGM ${doc.version ?? "version not given"} (${doc.format} format), level ${num(result.level) ?? "?"}`;

  const by = (s: DcgmResult["status"]) => doc.results.filter((r) => r.status === s);
  const [fails, warns, skips] = [by("fail"), by("warn"), by("skip")];
  const unknown = by(null);
  m.metrics.dcgm_skipped = skips.length;
  m.details!.dcgm_skipped = skips.length ? skips.map(line).join("; ") : `no test skipped (${source})`;
  const ran = doc.results.length - skips.length - unknown.length;
  const unjudged = unknown.length
    ? `DCGM gave result status ${unknown.map((r) => `"${r.rawStatus}" (${r.test} on ${where(r)})`).join(", ")}, which this parser does not know: not counted as a pass`
    : ran === 0
      ? `DCGM ran no test to the end: every result was skipped (${skips.map((r) => `${r.test} on ${where(r)}`).join(", ")})`
      : undefined;
  for (const [metric, rows] of [
    ["dcgm_failures", fails],
    ["dcgm_warnings", warns],
  ] as const) {
    if (unjudged) {
      m.metrics[metric] = null;
      m.unmeasured![metric] = unjudged;
    } else {
      m.metrics[metric] = rows.length;
      m.details![metric] = rows.length ? rows.map(line).join("; ") : `none in ${ran} results (${source})`;
    }
  }
  m.components = components(doc.results, new Set([...inventory.keys(), ...doc.gpus.keys()]), gpuPart);
  if (m.components.length === 0) m.unmeasured![DCGM_GPU_METRIC] = `DCGM named no GPU in its results (${source})`;
  if (Object.keys(m.unmeasured!).length === 0) delete m.unmeasured;
  return m;
}

/** each GPU's failed results; a GPU DCGM gave no result for, or only skips, is unmeasured, never 0 */
function components(results: DcgmResult[], known: Set<number>, gpuPart: (id: number) => PartId): ComponentValues[] {
  const ids = new Set(known);
  for (const r of results) if (r.group === "GPU" && r.id !== null) ids.add(r.id);
  return [...ids]
    .sort((a, b) => a - b)
    .map((id) => {
      const own = results.filter((r) => r.group === "GPU" && r.id === id);
      const c: ComponentValues = { part: gpuPart(id), metrics: { [DCGM_GPU_METRIC]: null } };
      const judged = own.filter((r) => r.status === "pass" || r.status === "fail" || r.status === "warn");
      const unknown = own.filter((r) => r.status === null);
      if (own.length === 0) c.unmeasured = { [DCGM_GPU_METRIC]: "DCGM reported no result for this GPU" };
      else if (unknown.length)
        c.unmeasured = { [DCGM_GPU_METRIC]: `DCGM result status ${unknown.map((r) => `"${r.rawStatus}" (${r.test})`).join(", ")} not known: not counted as a pass` };
      else if (judged.length === 0) c.unmeasured = { [DCGM_GPU_METRIC]: `every DCGM test on this GPU was skipped: ${own.map((r) => r.test).join(", ")}` };
      else {
        const fails = own.filter((r) => r.status === "fail");
        c.metrics[DCGM_GPU_METRIC] = fails.length;
        // DCGM's own words on this GPU, so its verdict names the code and the cause, not only a count
        if (fails.length) c.details = { [DCGM_GPU_METRIC]: fails.map((r) => `${r.test} ${r.rawStatus}${r.messages.length ? ` — ${r.messages.join(" | ")}` : ""}`).join("; ") };
      }
      return c;
    });
}

function unmeasuredAll(m: Measurement, why: string): Measurement {
  for (const metric of [...DCGM_METRICS, DCGM_GPU_METRIC]) {
    if (metric !== DCGM_GPU_METRIC) m.metrics[metric] = null;
    m.unmeasured![metric] = why;
  }
  delete m.details;
  return m;
}
