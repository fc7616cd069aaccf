// The node-isolation planner and judge (issue 16): which groups of nodes to launch, round by round,
// and which nodes (or pairs) are bad, with the evidence. Pure: the executor launches the rounds.
import { screenGroups } from "./adaptive.ts";
import { Bisection } from "./bisect.ts";
import { CLUSTERKIT } from "./judge.ts";
import { Pairwise } from "./pairwise.ts";
import type { Isolation, IsolationOptions, Pattern } from "./strategy.ts";
import { checkNodes, checkOptions } from "./validate.ts";

export { screenGroups } from "./adaptive.ts";
export { groupsProblem } from "./validate.ts";
export { FLEET_K, type FleetRow, fleetOutliers } from "./fleet.ts";
export { CLUSTERKIT, COMPARABLE_SIZE } from "./judge.ts";
export { halves, pairName, pairwiseRounds, randomMatchings } from "./schedule.ts";
export type * from "./strategy.ts";

/** Each suspect is re-tested with two healthy partners (issue 16: "confirm each suspect against two different healthy partners"). */
export const CONFIRM_PARTNERS = 2;

export function isolation(pattern: Pattern, nodes: string[], opts: IsolationOptions = {}): Isolation {
  checkNodes(pattern, nodes);
  checkOptions(pattern, nodes, opts);
  const settings = {
    outlierBelow: opts.outlierBelow ?? CLUSTERKIT.outlierBelow,
    latencyAbove: opts.latencyAbove ?? CLUSTERKIT.latencyAbove,
    confirmPartners: opts.confirmPartners ?? CONFIRM_PARTNERS,
    ...(opts.floor !== undefined && { floor: opts.floor }),
  };
  if (pattern === "pairwise") return new Pairwise([...nodes], settings, opts.pairs, opts.seed ?? 1);
  if (pattern === "bisect") return new Bisection("bisect", [...nodes], settings, [{ name: "all", nodes: [...nodes] }], "bisect");
  return new Bisection("adaptive", [...nodes], settings, screenGroups(nodes, opts.groups), "screen");
}

/**
 * What the plan can say before anything runs: the first pass. Pairwise: all of it. Bisect: the
 * whole-set launch. Adaptive: the screen round. What follows depends on what fails (`note` says so).
 */
export function plannedCount(pattern: Pattern, n: number, opts: IsolationOptions = {}): { rounds: number; launches: number; note: string } {
  const all = n % 2 ? n : n - 1;
  if (pattern === "pairwise") {
    if (opts.pairs !== undefined && opts.pairs < all)
      return { rounds: opts.pairs, launches: opts.pairs * Math.floor(n / 2), note: `${opts.pairs} random matchings; a second pass follows for suspects` };
    return { rounds: all, launches: (n * (n - 1)) / 2, note: "every pair once; a second pass follows for suspects" };
  }
  if (pattern === "bisect") return { rounds: 1, launches: 1, note: "the whole set; bisection follows only if it fails" };
  const screen = opts.groups?.length ?? screenGroups(Array.from({ length: n }, (_, i) => String(i))).length;
  return { rounds: 1, launches: screen, note: `the screen round only (${screen} groups); bisection follows for the groups that fail` };
}
