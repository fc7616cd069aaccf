// ibqueryerrors (infiniband-diags) → the error counters of every port it reported. It prints only the
// ports whose counters exceed its thresholds (none set: any non-zero value), so a port it does not
// list read zero on every counter. Layout:
//   Errors for 0x200001 "leaf02"                     (a CA: Errors for "node07 mlx5_0")
//      GUID 0x200001 port ALL: [SymbolErrorCounter == 7] [LinkDownedCounter == 2]
//      GUID 0x200001 port 3: [SymbolErrorCounter == 7] [LinkDownedCounter == 2]
//   ## Summary: 22 nodes checked, 1 bad nodes found
// Fixtures: test/fixtures/fabric/*.ibqueryerrors (README.md there).
import { ParseError } from "../../core/errors.ts";

export interface PortCounters {
  node: string;
  port: number;
  counters: Record<string, number>;
}

const NODE = /^Errors for (?:(0x[0-9a-fA-F]+)\s+)?"([^"]*)"/;
const PORT = /^\s+GUID\s+0x[0-9a-fA-F]+\s+port\s+(\d+|ALL):\s*(.*)$/;
const COUNTER = /\[(\w+) == (\d+)\]/g;

export function parseIbqueryerrors(text: string, source = "ibqueryerrors"): PortCounters[] {
  if (!/^## Summary: \d+ nodes checked/m.test(text))
    throw new ParseError(`${source}: no "## Summary: N nodes checked" line; ibqueryerrors did not finish a sweep of the subnet (run it by hand to see why)`);
  const out: PortCounters[] = [];
  let node: string | null = null;
  for (const line of text.split("\n")) {
    const n = NODE.exec(line);
    if (n) {
      node = n[2];
      continue;
    }
    const p = PORT.exec(line);
    // "port ALL" sums the node's ports; the ports themselves follow
    if (!p || p[1] === "ALL" || node === null) continue;
    const counters: Record<string, number> = {};
    for (const c of p[2].matchAll(COUNTER)) counters[c[1]] = Number(c[2]);
    out.push({ node, port: Number(p[1]), counters });
  }
  return out;
}
