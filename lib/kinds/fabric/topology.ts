// The declared topology (gpucheck fabric check --topology, docs/fabric.md): one cable a line, both ends as
// ibnetdiscover and ibsim write a port ("<node description or GUID>"[<port>]), then optionally the
// width and per-lane rate the link must train to, as iblinkinfo prints them:
//   "node01 mlx5_0"[1]  --  "leaf01"[1]   4X 2.5
// '#' starts a comment. `gpucheck fabric snapshot` writes one from a fabric known to be good.
import type { LinkInfoPort } from "./iblinkinfo.ts";

export interface End {
  node: string;
  port: number;
}

export interface DesignLink {
  a: End;
  b: End;
  width: string | null;
  speedGbps: string | null;
  /** 1-based line in the topology file, for messages */
  line: number;
}

const LINE = /^"([^"]+)"\[(\d+)\]\s+--\s+"([^"]+)"\[(\d+)\](?:\s+(\d+X))?(?:\s+([\d.]+))?\s*$/;

export class TopologyError extends Error {}

export function parseTopology(text: string, path: string): DesignLink[] {
  const links: DesignLink[] = [];
  const seen = new Map<string, number>();
  text.split("\n").forEach((raw, i) => {
    const line = raw.replace(/#.*$/, "").trim();
    if (line === "") return;
    const m = LINE.exec(line);
    if (!m)
      throw new TopologyError(
        `${path}:${i + 1}: cannot read "${raw.trim()}" while loading the fabric topology; write one cable a line: "node01 mlx5_0"[1] -- "leaf01"[1] 4X 2.5 (docs/fabric.md)`,
      );
    const link: DesignLink = { a: { node: m[1], port: Number(m[2]) }, b: { node: m[3], port: Number(m[4]) }, width: m[5] ?? null, speedGbps: m[6] ?? null, line: i + 1 };
    for (const end of [link.a, link.b]) {
      const k = endKey(end);
      const before = seen.get(k);
      if (before !== undefined)
        throw new TopologyError(`${path}:${i + 1}: port ${showEnd(end)} is already cabled on line ${before}; a port takes one cable, fix one of the two lines`);
      seen.set(k, i + 1);
    }
    links.push(link);
  });
  if (links.length === 0) throw new TopologyError(`${path}: no cables in the fabric topology; write one a line or make one with gpucheck fabric snapshot --out ${path}`);
  return links;
}

export function endKey(e: End): string {
  return `${e.node}[${e.port}]`;
}

export function showEnd(e: End): string {
  return `"${e.node}" port ${e.port}`;
}

/** Every cable iblinkinfo saw up, once each (it prints a cable from both ends), as topology lines. */
export function formatTopology(ports: LinkInfoPort[], header: string): string {
  const lines = [`# ${header}`, "# one cable a line: both ends, then the width and per-lane Gbps it must train to (docs/fabric.md)"];
  const done = new Set<string>();
  const cables = ports.filter((p) => p.peer !== null);
  // HCA ends first, so each compute port reads as its own line: node port -- switch port
  cables.sort((x, y) => (x.nodeType === y.nodeType ? 0 : x.nodeType === "CA" ? -1 : 1) || x.node.localeCompare(y.node) || x.port - y.port);
  for (const p of cables) {
    const peer = p.peer as NonNullable<LinkInfoPort["peer"]>;
    const a = endKey({ node: p.node, port: p.port });
    const b = endKey({ node: peer.node, port: peer.port });
    if (done.has(a) || done.has(b)) continue;
    done.add(a).add(b);
    lines.push(`"${p.node}"[${p.port}] -- "${peer.node}"[${peer.port}]  ${p.width ?? ""} ${p.speedGbps ?? ""}`.trimEnd());
  }
  return `${lines.join("\n")}\n`;
}
