// Bad input to the isolation planner: each case refused with a message that names the value, as
// the suite loader does (a SuiteError, exit 2, nothing has run).
import { SuiteError } from "../core/errors.ts";
import type { Group, IsolationOptions, Pattern } from "./strategy.ts";

/** The node list of any pattern: two or more distinct, non-empty names without "+" (it joins a pair's name). */
export function checkNodes(what: string, nodes: string[]): void {
  if (nodes.length < 2) throw new SuiteError(`${what} needs at least 2 nodes, got ${nodes.length}${nodes.length ? ` (${nodes[0]})` : ""}`);
  const seen = new Set<string>();
  nodes.forEach((n, i) => {
    if (n === "") throw new SuiteError(`${what}: node ${i + 1} has an empty name`);
    if (n.includes("+")) throw new SuiteError(`${what}: node "${n}" has a "+" in its name, which joins the names of a pair`);
    if (seen.has(n)) throw new SuiteError(`${what}: node "${n}" is listed twice`);
    seen.add(n);
  });
}

const whole = (v: number | undefined, min: number) => v === undefined || (Number.isInteger(v) && v >= min);

export function checkOptions(pattern: Pattern, nodes: string[], o: IsolationOptions): void {
  if (!whole(o.pairs, 1)) throw new SuiteError(`pairs must be a whole number of rounds, 1 or more: got ${o.pairs}`);
  if (o.pairs !== undefined && pattern !== "pairwise") throw new SuiteError(`pairs applies to the pairwise pattern only, not ${pattern}`);
  if (o.seed !== undefined && !Number.isSafeInteger(o.seed)) throw new SuiteError(`seed must be a whole number: got ${o.seed}`);
  if (o.outlierBelow !== undefined && !(o.outlierBelow > 0 && o.outlierBelow < 1))
    throw new SuiteError(`outlierBelow must be between 0 and 1 (a fraction of the best group): got ${o.outlierBelow}`);
  if (o.latencyAbove !== undefined && !(o.latencyAbove > 1 && Number.isFinite(o.latencyAbove)))
    throw new SuiteError(`latencyAbove must be above 1 (a multiple of the lowest latency): got ${o.latencyAbove}`);
  if (!whole(o.confirmPartners, 1)) throw new SuiteError(`confirmPartners must be a whole number, 1 or more: got ${o.confirmPartners}`);
  if (o.floor !== undefined && !Number.isFinite(o.floor)) throw new SuiteError(`floor must be a finite number: got ${o.floor}`);
  if (o.groups !== undefined) checkGroups(pattern, nodes, o.groups);
}

function checkGroups(pattern: Pattern, nodes: string[], groups: Group[]): void {
  if (pattern !== "adaptive") throw new SuiteError(`groups applies to the adaptive pattern only, not ${pattern}`);
  const problem = groupsProblem(nodes, groups);
  if (problem) throw new SuiteError(`groups: ${problem}`);
}

/** Why named groups do not split the nodes into groups of 2 or more, each node in one; undefined when they do. */
export function groupsProblem(nodes: readonly string[], groups: readonly Group[], what = "one of the nodes"): string | undefined {
  const known = new Set(nodes);
  const where = new Map<string, string>();
  for (const { name, nodes: g } of groups) {
    if (g.length < 2) return `group "${name}" has ${g.length} node${g.length === 1 ? ` (${g[0]})` : "s"}: a multi-node test needs 2`;
    for (const n of g) {
      if (!known.has(n)) return `"${n}" in group "${name}" is not ${what}`;
      const before = where.get(n);
      if (before !== undefined) return `"${n}" is in group "${before}" and group "${name}"`;
      where.set(n, name);
    }
  }
  const missing = nodes.filter((n) => !where.has(n));
  return missing.length ? `${missing.join(", ")} ${missing.length === 1 ? "is" : "are"} in no group` : undefined;
}
