// NCCL's own account of a run (NCCL_DEBUG=INFO, subsystems INIT,GRAPH,NET,TUNING) → which transport each
// connection used. Pure; never throws: text that holds no NCCL INFO line yields a reason instead.
//
// What is read (the wording of NCCL 2.4 to 2.23, see test/fixtures/nccl-info/README.md):
//   "NCCL version 2.21.5+cuda12.4"                        (bare, or after "NCCL INFO")
//   "Using network IBext_v8" / "P2P plugin IBext_v8"      the network and the plugin chosen
//   "NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_3:1/IB ..."    the HCAs NCCL opened (link layer after the port)
//   "NET/Socket : Using [0]eth0:10.0.0.1<0>"               interfaces; also printed for bootstrap, so it
//                                                          says nothing about the transport on its own
//   "Channel 00/0 : 0[0] -> 1[1] via P2P/IPC/read"        one connection; "Ring 00 : …" before 2.7
//   "… [send] via NET/IBext_v8/5(2)/GDRDMA"               network connection: plugin, NIC index,
//                                                          (PXN proxy rank), GPUDirect RDMA
//   "GPU Direct RDMA Disabled for HCA 1 'mlx5_1' …"        GDR off for a NIC (no peermem, distance)
//   "2 coll channels, 2 collnet channels, 16 nvls channels …", "NVLS comm … headRank"   NVLS in use
//   "comm 0x… rank 0 nRanks 24 nNodes 3 localRanks 8 …"    the communicator's shape
//   "Connected all rings" / "Connected all trees"          the algorithms connected at init
//   "NCCL_ALGO set by environment to Ring"                 settings NCCL took from the environment
//   "AllReduce: 8589934592 Bytes -> Algo NVLS proto SIMPLE …"  the algorithm NCCL chose for a call
//                                                          (TUNING, lib/parsers/nccl-tuning.ts)
// The transport of a connection is decided by its "via" text alone: the "Using" lines list what NCCL
// could use, the "via" lines what it did.
import type { TransportSummary } from "../core/types.ts";
import { classifyVia } from "./nccl-wordings.ts";
import { tuningLine } from "./nccl-tuning.ts";

export type { TransportSummary };

export type NcclInfoResult = { summary: TransportSummary; reason?: undefined } | { summary: null; reason: string };

const MAX_WARNINGS = 5;

/** Every NCCL INFO line of every rank's log → one summary. */
export function parseNcclInfo(texts: string | string[]): NcclInfoResult {
  const s = emptySummary();
  const seen: Seen = { hcas: new Set(), dev: new Set(), gdr: new Set(), warn: new Set(), unclassified: new Set(), tuning: new Map() };
  for (const text of Array.isArray(texts) ? texts : [texts]) {
    if (typeof text !== "string") continue;
    for (const line of text.split("\n")) readLine(line, s, seen);
  }
  if (s.infoLines === 0 && s.ncclVersion === null) return { summary: null, reason: "no NCCL INFO lines in the output" };
  s.hcas = [...seen.hcas];
  s.netDevices = [...seen.dev].sort();
  s.gdrDisabled = [...seen.gdr];
  s.warnings = [...seen.warn].slice(0, MAX_WARNINGS);
  if (seen.tuning.size) s.tuning = [...seen.tuning.values()].sort((a, b) => a.bytes - b.bytes);
  if (seen.unclassified.size) s.unclassified = { lines: [...seen.unclassified].slice(0, MAX_WARNINGS), count: seen.unclassified.size };
  return { summary: s };
}

function emptySummary(): TransportSummary {
  return {
    ncclVersion: null,
    network: null,
    plugin: null,
    transports: {},
    hcas: [],
    netDevices: [],
    gdrDisabled: [],
    nvlsAvailable: null,
    nvlsChannels: null,
    nRanks: null,
    nNodes: null,
    localRanks: null,
    collChannels: null,
    algorithms: [],
    settings: {},
    warnings: [],
    infoLines: 0,
  };
}

interface Seen {
  hcas: Set<string>;
  dev: Set<string>;
  gdr: Set<string>;
  warn: Set<string>;
  /** connection lines whose "via" wording is not in the table */
  unclassified: Set<string>;
  /** NCCL's per-call choices, once per call, size, algorithm and protocol */
  tuning: Map<string, NonNullable<TransportSummary["tuning"]>[number]>;
}

const VERSION = /NCCL version (\d+\.\d+\.\d+[^\s]*)/;

function readLine(raw: string, s: TransportSummary, seen: Seen): void {
  if (!raw.includes("NCCL")) return;
  const line = raw.endsWith("\r") ? raw.slice(0, -1) : raw;
  if (s.ncclVersion === null) {
    const v = VERSION.exec(line);
    if (v) s.ncclVersion = v[1];
  }
  // before 2.20 only TRACE builds print the algorithm chosen per call
  const trace = line.indexOf("NCCL TRACE ");
  if (trace !== -1) tuning(line.slice(trace + 11).trim(), seen);
  const warn = line.indexOf("NCCL WARN ");
  if (warn !== -1 && seen.warn.size < MAX_WARNINGS) seen.warn.add(line.slice(warn + 10).trim());
  // an INFO line may be glued after another rank's output (a table row) on the same line
  let at = line.indexOf("NCCL INFO ");
  while (at !== -1) {
    const next = line.indexOf("NCCL INFO ", at + 10);
    readInfo(line.slice(at + 10, next === -1 ? undefined : next).trim(), s, seen);
    s.infoLines++;
    at = next;
  }
}

const VIA = /\bvia (.+)$/;
const COMM = /\bnRanks (\d+) nNodes (\d+) localRanks (\d+)/;
const CHANNELS = /^(\d+) coll channels,(?:.*?(\d+) nvls channels)?/;

function tuning(info: string, seen: Seen): boolean {
  const c = tuningLine(info);
  if (c) seen.tuning.set(`${c.op} ${c.bytes} ${c.algo} ${c.proto}`, c);
  return c !== null;
}

function readInfo(info: string, s: TransportSummary, seen: Seen): void {
  if (tuning(info, seen)) return;
  // "Channel 00/0 : …" (2.7+), "Ring 00 : …" (2.4–2.6), "CollNet 00/0 : …" (CollNet connections)
  const via = /^(Channel|Ring|Tree|CollNet) /.test(info) ? VIA.exec(info) : null;
  if (via) return connection(via[1].trim(), info, s, seen);
  let m: RegExpExecArray | null;
  if ((m = /^Using network (.+)$/.exec(info))) s.network ??= m[1].trim();
  else if ((m = /^P2P plugin (?:v\d+ )?(\S+)/.exec(info))) s.plugin ??= m[1];
  else if ((m = /^NET\/Plugin ?: Loaded (?:net|coll) plugin (.+?)(?: \(v\d+\))?$/.exec(info))) s.plugin ??= m[1];
  else if ((m = /^NET\/IB ?: Using (.*?)(?:;|$)/.exec(info))) for (const h of listed(m[1])) seen.hcas.add(h);
  else if ((m = /GPU Direct RDMA Disabled for (.+)$/.exec(info))) seen.gdr.add(m[1].trim());
  else if ((m = /^NVLS multicast support is (not )?available/.exec(info))) s.nvlsAvailable = m[1] ? (s.nvlsAvailable ?? false) : true;
  else if (/^NVLS comm 0x[0-9a-f]+ headRank/.test(info) || /^Connected NVLS/.test(info)) {
    s.transports.NVLS = Math.max(s.transports.NVLS ?? 0, 1);
    algorithm(s, "NVLS");
  } else if ((m = /^Connected all (rings|trees)\b/.exec(info))) algorithm(s, m[1] === "rings" ? "Ring" : "Tree");
  else if ((m = /^(NCCL_[A-Z0-9_]+) set (?:by environment )?to (.*?)\.?$/.exec(info))) s.settings[m[1]] ??= m[2];
  else if ((m = COMM.exec(info))) {
    s.nRanks = Number(m[1]);
    s.nNodes = Number(m[2]);
    s.localRanks = Number(m[3]);
  } else if ((m = CHANNELS.exec(info))) {
    s.collChannels = Math.max(s.collChannels ?? 0, Number(m[1]));
    const nvls = m[2] === undefined ? 0 : Number(m[2]);
    if (nvls > 0) {
      s.nvlsChannels = Math.max(s.nvlsChannels ?? 0, nvls);
      s.transports.NVLS = Math.max(s.transports.NVLS ?? 0, nvls);
      algorithm(s, "NVLS");
    }
  }
}

function algorithm(s: TransportSummary, name: string): void {
  if (!s.algorithms.includes(name)) s.algorithms.push(name);
}

/** "[0]mlx5_0:1/IB/SHARP [1]mlx5_3:1/RoCE [RO]" → ["mlx5_0:1/IB/SHARP", "mlx5_3:1/RoCE"] */
function listed(text: string): string[] {
  return [...text.matchAll(/\[\d+\](\S+)/g)].map((x) => x[1]);
}

/**
 * One "via …" text → the transport its wording names (lib/parsers/nccl-wordings.ts), counted;
 * GDRDMA counted beside the network. A wording no release of NCCL is known to print is kept whole,
 * never turned into a transport name of its own.
 */
function connection(via: string, line: string, s: TransportSummary, seen: Seen): void {
  const add = (key: string) => void (s.transports[key] = (s.transports[key] ?? 0) + 1);
  const c = classifyVia(via);
  if (!c) {
    seen.unclassified.add(line);
    return;
  }
  add(c.token);
  if (c.device) seen.dev.add(c.device);
  if (c.gdr) add("GDRDMA");
}

/** Whether a transport token (as a suite writes it) was used: "P2P" covers P2P/IPC, "NET" every network. */
export function usedTransport(summary: TransportSummary, token: string): boolean {
  return Object.entries(summary.transports).some(([k, n]) => n > 0 && (k === token || k.startsWith(`${token}/`)));
}

/** "NVLS (16 channels) · 16 × P2P/IPC · 32 × NET/IB, all GDRDMA · Ring and Tree connected · HCAs mlx5_0, mlx5_3 · NCCL 2.21.5" */
export function transportAccount(s: TransportSummary): string {
  const order = (k: string) => (k === "NVLS" ? 0 : k.startsWith("P2P") ? 1 : k === "SHM" ? 2 : 3);
  const parts = Object.entries(s.transports)
    .filter(([k, n]) => k !== "GDRDMA" && n > 0)
    .sort((a, b) => order(a[0]) - order(b[0]) || b[1] - a[1])
    .map(([k, n]) => {
      if (k === "NVLS") return s.nvlsChannels ? `NVLS (${s.nvlsChannels} channels)` : "NVLS";
      const gdr = k.startsWith("NET/") && s.transports.GDRDMA ? `, ${s.transports.GDRDMA === n ? "all" : s.transports.GDRDMA} GDRDMA` : "";
      return `${n} × ${k}${gdr}`;
    });
  if (parts.length === 0) parts.push("no connection lines");
  // the NVLink test's question: was NVLS there, and was it used ("N nvls channels" ends the init)
  if (!s.transports.NVLS && s.nvlsAvailable === false) parts.push("NVLS not available");
  if (!s.transports.NVLS && s.nvlsAvailable === true && s.collChannels !== null) parts.push("NVLS available, not used");
  if (s.transports["NET/IB"] && !s.transports.GDRDMA) parts.push("no GDRDMA");
  const algos = s.algorithms.filter((a) => a !== "NVLS");
  if (algos.length) parts.push(`${algos.join(" and ")} connected`);
  if (s.hcas.length) parts.push(`HCAs ${s.hcas.map((h) => h.split(":")[0]).join(", ")}`);
  if (s.gdrDisabled.length) parts.push(`GDR disabled for ${s.gdrDisabled.join("; ")}`);
  if (s.nNodes !== null) parts.push(`${s.nNodes} node${s.nNodes === 1 ? "" : "s"} × ${s.localRanks} local ranks`);
  if (s.ncclVersion) parts.push(`NCCL ${s.ncclVersion}`);
  return parts.join(" · ");
}

/** "24 × P2P/IPC, 16 × NET/IB, 16 with GDRDMA": what the connections used, for a failed transport check. */
export function connectionCounts(s: TransportSummary): string {
  const list = Object.entries(s.transports)
    .filter(([k, n]) => n > 0 && k !== "GDRDMA")
    .sort((a, b) => b[1] - a[1]);
  const gdr = s.transports.GDRDMA ? `, ${s.transports.GDRDMA} with GDRDMA` : "";
  return list.length ? `${list.map(([k, n]) => `${n} × ${k}`).join(", ")}${gdr}` : "none";
}
