// pattern: adaptive, the screen of NVIDIA's Cluster Readiness Engine (issue 16): groups of about √N
// nodes (or the suite's rack/rail groups) launched at once; the failing ones are bisected.
import type { Group } from "./strategy.ts";

/**
 * √N groups of √N nodes balance the screen (N/s launches) against the bisection of a failing group
 * (about 2·log2 s launches): the CRE's published cost, 28–57 tests at 232 nodes, is this shape.
 * Sizes differ by one node at most; never a group of one, which a multi-node test cannot run.
 */
export function screenGroups(nodes: readonly string[], named?: readonly Group[]): Group[] {
  if (named) return named.map((g) => ({ name: g.name, nodes: [...g.nodes] }));
  const size = Math.max(2, Math.round(Math.sqrt(nodes.length)));
  const count = Math.max(1, Math.floor(nodes.length / size));
  const base = Math.floor(nodes.length / count);
  const extra = nodes.length % count;
  const out: Group[] = [];
  let at = 0;
  for (let i = 0; i < count; i++) {
    const n = base + (i < extra ? 1 : 0);
    out.push({ name: `screen-${i + 1}`, nodes: nodes.slice(at, at + n) });
    at += n;
  }
  return out;
}
