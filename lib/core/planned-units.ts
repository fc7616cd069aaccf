// A test's units as data, decided once in the plan: platforms run the units they are given rather
// than each splitting a test itself. Per-node mode is a list of one-node units; the pairwise and
// bisection patterns are other lists of the same shape.
import type { PlannedTest, PlannedUnit, UnitRank } from "./types.ts";
import type { RunHosts } from "./platform.ts";

type Shape = Pick<PlannedTest, "nodes" | "ranksPerNode" | "perNode">;

/** Host-major ranks: node i holds global ranks i·R … i·R+R-1. */
export function ranksOn(nodes: number, ranksPerNode: number): UnitRank[] {
  return Array.from({ length: nodes * ranksPerNode }, (_, rank) => ({ rank, localRank: rank % ranksPerNode, node: Math.floor(rank / ranksPerNode) }));
}

/**
 * Every platform puts a test on the first `nodes` hosts, in the order given; a host shared by every
 * node (local, one docker engine) appears once per node. Without hosts the nodes are named slots.
 */
export function planUnits(test: Shape, hosts: RunHosts | undefined): PlannedUnit[] {
  const R = test.ranksPerNode;
  if (!hosts) {
    if (test.perNode) return [{ name: "{{node}}", nodes: ["{{node}}"], ranks: ranksOn(1, R), eachNode: true }];
    return [{ name: "all", nodes: Array.from({ length: test.nodes }, (_, i) => `{{node${i}}}`), ranks: ranksOn(test.nodes, R) }];
  }
  if (test.perNode) return hosts.names.map((h) => ({ name: h, nodes: [h], ranks: ranksOn(1, R) }));
  const nodes = hosts.separate ? hosts.names.slice(0, test.nodes) : Array.from({ length: test.nodes }, () => hosts.names[0]!);
  return [{ name: "all", nodes, ranks: ranksOn(nodes.length, R) }];
}

/** The test's units: the plan's, or for a test built by hand (tests drive platforms directly) the default split. */
export function unitsOfTest(test: Shape & { units?: PlannedUnit[] }, hosts: RunHosts | undefined): PlannedUnit[] {
  return test.units ?? planUnits(test, hosts);
}
