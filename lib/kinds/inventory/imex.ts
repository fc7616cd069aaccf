// The IMEX domain a node's daemon reports (`nvidia-imex-ctl -N`, parsed on the node by
// workload/gpucheck_workload/imex.py) → the count the inventory judges on a multi-node NVLink rack:
// every node of the domain READY, every pair Connected (C), Domain State UP. Anything else names
// the node by its index and address, the pair by both ends, and what the report said.

interface ImexNode {
  index: number;
  address: string;
  status: string;
  version?: string;
}

export interface ImexDomain {
  nodes: ImexNode[];
  /** [from, to, code]: a cell of the connectivity table other than C */
  not_connected: Array<[number, number, string]>;
  domain_state: string;
}

/** What the legend of `nvidia-imex-ctl -N` says each code means */
const CODES: Record<string, string> = {
  I: "Invalid: node not reachable",
  N: "Never Connected",
  R: "Recovering: connection lost",
  D: "Disconnected",
  A: "Authenticating",
  "!V!": "version mismatch",
  "!M!": "node map mismatch",
};

/** { value, detail } of imex_not_ready, or { value: null, reason } when the domain could not be read. */
export function imexNotReady(imex: unknown, reason: string | undefined): { value: number | null; detail?: string; reason?: string } {
  if (!imex || typeof imex !== "object") return { value: null, reason: `the IMEX domain could not be read: ${reason ?? "the node reported no IMEX domain"}` };
  const d = imex as ImexDomain;
  const nodes = Array.isArray(d.nodes) ? d.nodes : [];
  const at = (i: number) => {
    const n = nodes.find((x) => x.index === i);
    return n ? `node #${i} (${n.address})` : `node #${i}`;
  };
  const problems: string[] = [];
  for (const n of nodes) if (n.status !== "READY") problems.push(`${at(n.index)} ${n.status}, not READY`);
  for (const [from, to, code] of Array.isArray(d.not_connected) ? d.not_connected : []) problems.push(`${at(from)} → ${at(to)}: ${code} (${CODES[code] ?? "not Connected"})`);
  if (d.domain_state !== "UP") problems.push(`Domain State ${d.domain_state}, not UP`);
  return { value: problems.length, detail: problems.length ? `nvidia-imex-ctl -N: ${problems.join("; ")}` : undefined };
}
