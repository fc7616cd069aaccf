// The nic-loopback command's GPUCHECK_RESULT → each HCA's ib_write_bw loopback Gb/s as a component
// (named by host, device, port, rate, NUMA node and the GPU it wrote from), the lowest of them, and
// every HCA without a figure null with its reason: a tool missing, no GPU, no NUMA node, a server
// that never listened, a client that timed out, exited non-zero, or whose table stops short of the
// message size asked (perftest prints the rows it finished before "Completion with error").
import { ParseError } from "../../core/errors.ts";
import type { ComponentValues, Measurement } from "../../core/types.ts";
import { type PartValue, setLowest } from "../../parsers/lowest.ts";
import { num, obj } from "../../parsers/part.ts";
import { complaint, parsePerftestBw } from "../../parsers/perftest.ts";
import { taggedLines } from "../../parsers/protocol.ts";

type Obj = Record<string, unknown>;
const str = (v: unknown): string | null => (typeof v === "string" ? v : null);

/** "gpu01 mlx5_0 port 1 (400 Gb/s, NUMA node 0, GPU 0)" */
function hcaName(h: Obj, host: string): string {
  const rate = num(h.rate_gbps);
  const state = str(h.state) && str(h.state) !== "ACTIVE" ? `, ${str(h.state)}` : "";
  const numa = num(h.numa_node) === null ? "NUMA node unknown" : `NUMA node ${num(h.numa_node)}`;
  return `${host} ${str(h.device)} port ${String(h.port)} (${rate === null ? "rate unknown" : `${rate} Gb/s`}${state}, ${numa}, GPU ${num(h.gpu)})`;
}

/** One HCA's client run → its Gb/s, or null with why. */
export function loopbackFigure(h: Obj, size: number): { value: number | null; why?: string; text: string } {
  const why = str(h.why) ?? str(obj(h.client).why);
  if (why) return { value: null, why, text: why };
  const client = obj(h.client);
  const output = str(client.output) ?? "";
  const rc = num(client.rc);
  const fail = (reason: string) => ({ value: null, why: reason, text: reason });
  let r: ReturnType<typeof parsePerftestBw>;
  try {
    r = parsePerftestBw(output, "ib_write_bw");
  } catch (e) {
    if (!(e instanceof ParseError)) throw e;
    return fail(rc === null || rc === 0 ? e.message : `ib_write_bw exited with code ${rc}; ${e.message}`);
  }
  if (r.bytes !== size) {
    return fail(
      `ib_write_bw's last result row is for ${r.bytes}-byte writes (${r.avgGbps} Gb/s), not the ${size} asked: the run stopped early${rc ? ` with exit code ${rc}` : ""}; ${complaint(output)}`,
    );
  }
  if (rc !== 0) return fail(`ib_write_bw exited with code ${rc} after its table; ${complaint(output)}`);
  const peak = r.peakGbps === null ? "" : `, peak ${r.peakGbps.toFixed(1)}`;
  return {
    value: r.avgGbps,
    text: `${r.avgGbps.toFixed(1)} Gb/s average${peak}, ${r.bytes}-byte writes looped back on the HCA, GPUDirect from GPU ${num(h.gpu)} (${str(h.gpu_source)})`,
  };
}

export function nicLoopbackMeasurement(output: string): Measurement {
  const result = taggedLines(output, "RESULT").pop();
  if (!result) throw new ParseError("no GPUCHECK_RESULT line in the nic-loopback output: the run did not finish");
  if (!Array.isArray(result.hcas)) throw new ParseError("the nic-loopback result has no hcas list");
  const host = str(result.host) ?? "unknown host";
  const size = num(result.size) ?? 0;
  const m: Measurement = { metrics: {}, unmeasured: {}, details: {}, raw: result, components: [] };
  const hcas = (result.hcas as unknown[]).map(obj);
  if (hcas.length === 0) {
    m.metrics.nic_loopback_gbps_min = null;
    m.unmeasured!.nic_loopback_gbps_min = `${host}: ${str(result.no_ib) ?? "no HCA was tested"}`;
    return m;
  }
  const rows: PartValue[] = [];
  for (const h of hcas) {
    const f = loopbackFigure(h, size);
    const component: ComponentValues = {
      part: { type: "nic", host, name: str(h.device) ?? "unknown HCA", ...(num(h.gpu) !== null && { index: num(h.gpu)! }) },
      metrics: { nic_loopback_gbps: f.value },
      source: "perftest",
      ...(f.why ? { unmeasured: { nic_loopback_gbps: f.why } } : { details: { nic_loopback_gbps: f.text } }),
    };
    m.components!.push(component);
    rows.push({ part: hcaName(h, host), value: f.value, why: f.why, text: f.text });
  }
  setLowest(m, "nic_loopback_gbps_min", rows);
  return m;
}
