// The nic command's GPUCHECK_RESULT → metrics: each HCA pair's ib_write_bw Gb/s and ib_read_lat µs
// (lib/parsers/perftest.ts reads the clients' output), or without perftest NCCL send/recv pinned to
// the HCA (lib/kinds/nic/parse-p2p.ts), as a component named by host, device, port, rate and nearest GPU
// with the tool as its source; the worst of them; and the TCP stream between the two ranks, labelled
// with the interface it crossed. Every HCA whose run left no figure is null with the reason.
import { ParseError } from "../../core/errors.ts";
import type { ComponentValues, Measurement } from "../../core/types.ts";
import { type PartValue, setLowest } from "../../parsers/lowest.ts";
import { num, obj } from "../../parsers/part.ts";
import { parsePerftestBw, parsePerftestLat } from "../../parsers/perftest.ts";
import { p2pFigures } from "./parse-p2p.ts";
import { taggedLines } from "../../parsers/protocol.ts";

type Obj = Record<string, unknown>;
const str = (v: unknown): string | null => (typeof v === "string" ? v : null);

interface Figure {
  value: number | null;
  why?: string;
  text: string;
}

/** One client run → its figure, or null with why (the workload's reason, perftest's complaint, the exit code). */
function figure(run: Obj, kind: "bw" | "lat", gpu: number | null): Figure {
  const tool = kind === "bw" ? "ib_write_bw" : "ib_read_lat";
  const why = str(run.why);
  if (why) return { value: null, why, text: why };
  const output = str(run.output) ?? "";
  const rc = num(run.rc);
  try {
    const memory = gpu === null ? "host memory" : `GPUDirect from GPU ${gpu}`;
    if (kind === "bw") {
      const r = parsePerftestBw(output, tool);
      const peak = r.peakGbps === null ? "" : `, peak ${r.peakGbps.toFixed(1)}`;
      if (rc !== 0) return { value: null, why: `${tool} exited with code ${rc} after its table`, text: "" };
      return { value: r.avgGbps, text: `${r.avgGbps.toFixed(1)} Gb/s average${peak}, ${r.bytes}-byte writes, ${memory}` };
    }
    const r = parsePerftestLat(output, tool);
    if (rc !== 0) return { value: null, why: `${tool} exited with code ${rc} after its table`, text: "" };
    return { value: r.typicalUs, text: `${r.typicalUs} µs typical, ${r.avgUs} µs average${r.p99Us === null ? "" : `, ${r.p99Us} µs 99%`}, ${r.bytes}-byte reads, ${memory}` };
  } catch (e) {
    if (!(e instanceof ParseError)) throw e;
    const reason = rc === null || rc === 0 ? e.message : `exit code ${rc}; ${e.message}`;
    return { value: null, why: reason, text: reason };
  }
}

/** One HCA's two figures from the tool its record names: perftest's clients, NCCL send/recv, or neither (why). */
function figures(h: Obj, server: string, client: string): { b: Figure; l: Figure; source: string | null } {
  const source = str(h.source);
  if (source === "nccl-p2p") {
    const f = p2pFigures(obj(h.p2p), `${str(h.device)}:${String(h.port)}`, server, client, num(h.gpu_server));
    return { b: f.bw, l: f.lat, source };
  }
  if (h.source === null) {
    const why = str(h.why) ?? "neither perftest nor NCCL point-to-point could run";
    return { b: { value: null, why, text: why }, l: { value: null, why, text: why }, source: null };
  }
  // results written before the NCCL path have no source: they are perftest's
  return { b: figure(obj(h.bw), "bw", num(h.gpu_server)), l: figure(obj(h.lat), "lat", num(h.gpu_server)), source: "perftest" };
}

/** "node0 mlx5_0 port 1 (400 Gb/s, nearest GPU 0) → node1 mlx5_0 (nearest GPU 0)" */
function pairName(h: Obj, server: string, client: string): string {
  const rate = num(h.rate_gbps);
  const near = (g: unknown) => (num(g) === null ? "no GPU topology" : `nearest GPU ${num(g)}`);
  const state = str(h.state) && str(h.state) !== "ACTIVE" ? `, ${str(h.state)}` : "";
  return `${server} ${str(h.device)} port ${String(h.port)} (${rate === null ? "rate unknown" : `${rate} Gb/s`}${state}, ${near(h.gpu_server)}) → ${client} ${str(h.device)} (${near(h.gpu_client)})`;
}

/** The highest value over the parts (a latency), every part named worst first; null with every gap's reason. */
function setHighest(m: Measurement, metric: string, rows: PartValue[]): void {
  const flipped = rows.map((r) => ({ ...r, value: r.value === null ? null : -r.value }));
  setLowest(m, metric, flipped);
  if (m.metrics[metric] != null) m.metrics[metric] = -(m.metrics[metric] as number);
}

export function nicMeasurement(output: string): Measurement {
  const result = taggedLines(output, "RESULT").pop();
  if (!result) throw new ParseError("no GPUCHECK_RESULT line in rank 0's output: the nic run did not finish");
  if (!Array.isArray(result.hcas)) throw new ParseError("the nic result has no hcas list");
  const server = str(obj(result.server).host) ?? "unknown host";
  const client = str(obj(result.client).host) ?? "unknown host";
  const m: Measurement = { metrics: {}, unmeasured: {}, details: {}, raw: result, components: [] };
  const hcas = (result.hcas as unknown[]).map(obj);
  if (hcas.length === 0) {
    const why = str(result.no_ib) ?? "no HCA was tested";
    for (const metric of ["nic_bw_gbps_min", "nic_lat_us_max"]) {
      m.metrics[metric] = null;
      m.unmeasured![metric] = why;
    }
  } else {
    const bw: PartValue[] = [];
    const lat: PartValue[] = [];
    for (const h of hcas) {
      const part = pairName(h, server, client);
      const { b, l, source } = figures(h, server, client);
      const component: ComponentValues = {
        part: { type: "nic", host: server, name: str(h.device) ?? "unknown HCA", ...(num(h.gpu_server) !== null && { index: num(h.gpu_server)! }) },
        metrics: { nic_bw_gbps: b.value, nic_lat_us: l.value },
        unmeasured: {},
        ...(source && { source }),
      };
      if (b.why) component.unmeasured!.nic_bw_gbps = b.why;
      if (l.why) component.unmeasured!.nic_lat_us = l.why;
      if (b.value !== null) component.details = { nic_bw_gbps: b.text, ...(l.value !== null && { nic_lat_us: l.text }) };
      else if (l.value !== null) component.details = { nic_lat_us: l.text };
      m.components!.push(component);
      bw.push({ part, value: b.value, why: b.why, text: b.text });
      lat.push({ part, value: l.value, why: l.why, text: l.text });
    }
    setLowest(m, "nic_bw_gbps_min", bw);
    setHighest(m, "nic_lat_us_max", lat);
  }
  tcpMetrics(m, obj(result.tcp), hcas.length === 0, server, client);
  return m;
}

function tcpMetrics(m: Measurement, tcp: Obj, noRdma: boolean, server: string, client: string): void {
  const why = str(tcp.why);
  const gbs = num(tcp.gbyte_s);
  const rtt = num(tcp.rtt_us);
  // the route between the two nodes is a part of its own, so that pairs of nodes (pattern: pairwise)
  // can be held against each other by an outlier rule over the fleet, on CPU hosts too
  const route = { type: "nic" as const, host: client, name: `TCP ${str(tcp.interface) ?? "route"} → ${server}` };
  if (why || gbs === null || rtt === null) {
    const reason = why ?? "the TCP stream reported no GB/s or round trip";
    for (const metric of ["nic_tcp_gbyte_s", "nic_tcp_rtt_us"]) {
      m.metrics[metric] = null;
      m.unmeasured![metric] = reason;
    }
    m.components!.push({
      part: route,
      metrics: { nic_tcp_route_gbyte_s: null, nic_tcp_route_rtt_us: null },
      unmeasured: { nic_tcp_route_gbyte_s: reason, nic_tcp_route_rtt_us: reason },
    });
    return;
  }
  const over = `TCP over ${str(tcp.interface)} (${client} ${str(tcp.local_addr)} → ${server} ${str(tcp.peer_addr)})`;
  const label = noRdma ? `device: cpu — ${over}, no RDMA NIC crossed` : `${over}: the rendezvous route, not the RDMA NICs`;
  m.metrics.nic_tcp_gbyte_s = gbs;
  m.metrics.nic_tcp_rtt_us = rtt;
  m.details!.nic_tcp_gbyte_s = `${label}; ${num(tcp.bytes)} bytes in ${(num(tcp.seconds) ?? 0).toFixed(3)} s`;
  m.details!.nic_tcp_rtt_us = `${label}; median of ${num(tcp.pings)} 1-byte round trips`;
  m.components!.push({
    part: route,
    metrics: { nic_tcp_route_gbyte_s: gbs, nic_tcp_route_rtt_us: rtt },
    details: { nic_tcp_route_gbyte_s: m.details!.nic_tcp_gbyte_s, nic_tcp_route_rtt_us: m.details!.nic_tcp_rtt_us },
  });
}
