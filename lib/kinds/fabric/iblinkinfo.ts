// iblinkinfo (infiniband-diags) → one record per port it printed. Its default layout is a header per
// node ("CA: <description>:" or "Switch: <node GUID> <description>:") and one line per port:
//   CA port:     <port GUID> <LID> <port>[  ] ==( 4X 2.5 Gbps Active/  LinkUp)==> <peer LID> <peer port>[  ] "<peer description>" ( ... )
//   switch port:             <LID> <port>[  ] ==(                Down/ Polling)==>             [  ] "" ( )
// Fixtures: test/fixtures/fabric/*.iblinkinfo (ibsim captures and a real one, README.md there).
import { ParseError } from "../../core/errors.ts";

export interface LinkInfoPort {
  nodeType: "CA" | "Switch";
  /** the node's description as the fabric reports it ("node01 mlx5_0", "leaf01") */
  node: string;
  /** a switch's node GUID from its header, or a CA port's GUID from its line */
  guid: string | null;
  lid: number;
  port: number;
  /** "4X", null when the port is down */
  width: string | null;
  /** per-lane signalling rate as printed ("2.5", "25.78125"), null when down */
  speedGbps: string | null;
  /** logical state: Active, Initialize, Armed, Down */
  state: string;
  /** physical state: LinkUp, Polling, Disabled, ... */
  phys: string;
  /** the other end of the cable, null when nothing answered there */
  peer: { node: string; port: number; lid: number } | null;
}

const HEADER = /^(CA|Switch):\s+(?:(0x[0-9a-fA-F]+)\s+)?(.*):\s*$/;
const PORT = /^\s*(?:(0x[0-9a-fA-F]+)\s+)?(\d+)\s+(\d+)\[[^\]]*\]\s+==\((.*)\)==>\s*(.*)$/;
const LINK = /^\s*(?:(\d+)X\s+)?(?:([\d.]+)\s+Gbps\s+)?(?:\([^)]*\)\s+)?(\w+)\/\s*(\w+)\s*$/;
const PEER = /^(?:(\d+)\s+)?(\d+)?\[[^\]]*\]\s+"([^"]*)"/;

export function parseIblinkinfo(text: string, source = "iblinkinfo"): LinkInfoPort[] {
  const ports: LinkInfoPort[] = [];
  let node: { type: "CA" | "Switch"; name: string; guid: string | null } | null = null;
  text.split("\n").forEach((line, i) => {
    if (line.trim() === "" || line.startsWith("ibwarn:")) return;
    const h = HEADER.exec(line);
    if (h) {
      node = { type: h[1] as "CA" | "Switch", name: h[3].trim(), guid: h[2]?.toLowerCase() ?? null };
      return;
    }
    const p = PORT.exec(line);
    if (!p) return;
    if (!node) throw new ParseError(`${source} line ${i + 1}: a port line before any "CA:" or "Switch:" header; is this iblinkinfo's default output (not --line)?`);
    const l = LINK.exec(p[4]);
    if (!l) throw new ParseError(`${source} line ${i + 1}: cannot read the link state in "(${p[4].trim()})"`);
    const peer = PEER.exec(p[5].trim());
    const up = peer && peer[2] !== undefined && peer[3] !== "";
    ports.push({
      nodeType: node.type,
      node: node.name,
      guid: node.type === "CA" ? (p[1]?.toLowerCase() ?? null) : node.guid,
      lid: Number(p[2]),
      port: Number(p[3]),
      width: l[1] ? `${l[1]}X` : null,
      speedGbps: l[2] ?? null,
      state: l[3],
      phys: l[4],
      peer: up ? { node: peer[3], port: Number(peer[2]), lid: Number(peer[1] ?? 0) } : null,
    });
  });
  if (ports.length === 0) throw new ParseError(`${source}: no port lines; did iblinkinfo reach a subnet (run it by hand on the node with the subnet manager's view)?`);
  return ports;
}
