// Every node's inventory against the baseline: each part (the node, each GPU, each compute HCA port)
// whose version differs is one finding naming the node, the part and both values. A baseline field
// the node could not read is unreadable, never a match.
import type { NodeInventory } from "../core/types.ts";
import { type ConfigFinding, partsOf } from "../kinds/inventory/config.ts";

type Obj = Record<string, unknown>;

export interface BaselineCheck {
  findings: ConfigFinding[];
  unreadable: string[];
}

export function baselineCheck(inv: NodeInventory, nics: Obj[], baseline: Record<string, string>): BaselineCheck {
  const findings: ConfigFinding[] = [];
  const unreadable: string[] = [];
  for (const [field, expected] of Object.entries(baseline)) {
    const parts = partsOf(inv, field, nics);
    if (parts.length === 0) unreadable.push(`${field} (the node has no part that carries it)`);
    for (const p of parts) {
      if (p.value === null) {
        const why = (inv.unmeasured as Obj | undefined)?.[field];
        unreadable.push(`${field} of ${p.part ? `${inv.hostname} ${p.part}` : inv.hostname}${typeof why === "string" ? ` (${why})` : ""}`);
      } else if (p.value.trim() !== expected.trim()) findings.push({ node: inv.hostname, part: p.part, field, value: p.value, expected, against: "the baseline" });
    }
  }
  return { findings, unreadable };
}
