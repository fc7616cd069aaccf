// nic's NCCL point-to-point record (workload/gpucheck_workload/nic_p2p.py: a child process per node
// and HCA, NCCL_IB_HCA==<hca>, rank 1 sends, rank 0 receives and times) → the HCA pair's Gb/s and
// one-way latency, credited to the HCA only when both children's NCCL INFO lines show the bytes
// crossed NET/IB on that HCA and no other: NET/Socket, another HCA or no INFO at all is the reason
// the figure is null, naming both.
import { parseNcclInfo } from "../../parsers/nccl-info.ts";
import { hcaRoute, ibAccount } from "../../parsers/nccl-transport.ts";
import { num, obj } from "../../parsers/part.ts";
import { taggedLines } from "../../parsers/protocol.ts";

type Obj = Record<string, unknown>;
const str = (v: unknown): string | null => (typeof v === "string" ? v : null);

export interface P2pFigure {
  value: number | null;
  why?: string;
  text: string;
}

/** The last line a failed child printed that is not NCCL's INFO: usually its error. */
function lastWords(output: string): string {
  const lines = output
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l && !l.includes("NCCL INFO") && !l.startsWith("GPUCHECK_"));
  return lines.at(-1) ?? "no output";
}

/** One child's run → null when it finished cleanly on the pinned HCA, else why (led by its host). */
function childProblem(run: Obj, host: string, hca: string): { why: string } | { account: string } {
  const why = str(run.why);
  if (why) return { why };
  const output = str(run.output) ?? "";
  const rc = num(run.rc);
  if (rc !== 0) return { why: `the NCCL send/recv child on ${host} exited with code ${rc ?? "unknown"}: ${lastWords(output)}` };
  const info = parseNcclInfo(output);
  if (!info.summary) return { why: `${host}: ${info.reason}, so the HCA the bytes crossed is unknown` };
  const wrong = hcaRoute(info.summary, hca);
  if (wrong) return { why: `${host}: NCCL INFO: ${wrong}` };
  return { account: ibAccount(info.summary) };
}

/** Both figures of one HCA measured by NCCL send/recv; `hca` is "mlx5_0:1", `gpu` the server's nearest GPU. */
export function p2pFigures(p2p: Obj, hca: string, server: string, client: string, gpu: number | null): { bw: P2pFigure; lat: P2pFigure } {
  const fail = (why: string) => ({ bw: { value: null, why, text: why }, lat: { value: null, why, text: why } });
  const top = str(p2p.why);
  if (top) return fail(top);
  const s = childProblem(obj(p2p.server), server, hca);
  const c = childProblem(obj(p2p.client), client, hca);
  const whys = [s, c].flatMap((x) => ("why" in x ? [x.why] : []));
  if (whys.length) return fail(whys.join("; "));
  const r = taggedLines(str(obj(p2p.server).output) ?? "", "P2P").pop();
  const gbit = num(r?.gbit_s);
  const lat = num(r?.lat_us);
  if (!r || gbit === null || lat === null) return fail(`the NCCL send/recv child on ${server} printed no GPUCHECK_P2P timings`);
  const pin = str(obj(p2p.env).NCCL_IB_HCA) ?? hca;
  const memory = gpu === null ? "GPU 0 (no GPU topology)" : `GPU ${gpu}`;
  const how = `nccl-p2p, NCCL_IB_HCA=${pin}: ${"account" in s ? s.account : ""} on ${hca}, from ${memory}`;
  const best = num(r.best_gbit_s);
  return {
    bw: { value: gbit, text: `${gbit.toFixed(1)} Gb/s NCCL send/recv${best === null ? "" : `, best ${best.toFixed(1)}`}, ${num(r.bytes)}-byte messages (${how})` },
    lat: { value: Number(lat.toPrecision(4)), text: `${lat.toPrecision(4)} µs one way, half the mean ${num(r.lat_bytes)}-byte NCCL round trip (${how})` },
  };
}
