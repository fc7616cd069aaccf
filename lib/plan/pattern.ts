// An isolating pattern in the plan: the hosts it isolates among, the rounds known before the run
// (pairwise: all of them; bisect: the whole set; adaptive: the screen) as units, and what is decided
// at run time (second passes, halves, confirmations). The rounds themselves are lib/isolate's.
import { SuiteError } from "../core/errors.ts";
import { isolating, patternOf } from "../core/pattern.ts";
import { getPlatform, platformNames, type Platform, type PlatformRegistry, type RunHosts } from "../core/platform.ts";
import type { Group } from "../core/isolation.ts";
import type { IsolatingPattern, PlannedIsolation, PlannedUnit, TestSpec } from "../core/types.ts";
import { groupsProblem, isolation, pairwiseRounds, plannedCount, randomMatchings } from "../isolate/mod.ts";
import { ranksOn } from "../core/planned-units.ts";

/** Where bisection goes after a failed whole-cluster run: adaptive screening past this many nodes. */
const BISECT_UP_TO = 16;

/** The test's isolation, or undefined for ring and each-node tests without `onFailure: isolate`. */
export function planIsolation(
  spec: TestSpec,
  platform: Pick<Platform, "name" | "anyUnits" | "hostsFrom">,
  hosts: RunHosts | undefined,
  ringNodes: number,
  registry?: PlatformRegistry,
): PlannedIsolation | undefined {
  const pattern = patternOf(spec);
  const onFailure = spec.onFailure === "isolate" && pattern === "ring";
  if (!isolating(pattern) && !onFailure) return undefined;
  const what = onFailure ? `"onFailure: isolate"` : `"pattern: ${pattern}"`;
  const refuse = (why: string) => new SuiteError(`gpucheck: test "${spec.name}" has ${what}, which ${why}`);
  if (!platform.anyUnits) {
    return refuseOn(platform.name, refuse, registry);
  }
  const from = platform.hostsFrom ?? "--hosts";
  // onFailure: the ring's own nodes, every one named, are what a failure is isolated among
  if (!hosts)
    throw refuse(
      `needs the run's hosts before it starts, and platform "${platform.name}" learns its nodes only at run time: give ${onFailure ? `its ${ringNodes} hosts` : "them"} with ${from}`,
    );
  if (!hosts.separate)
    throw refuse(`needs hosts of their own, and platform "${platform.name}" runs every node on one host: give ${onFailure ? ringNodes : "several"} with --hosts`);
  if (onFailure && hosts.names.length < ringNodes)
    throw refuse(
      `isolates a failure among the ${ringNodes} nodes of its run, named before it starts; the run has ${hosts.names.length}: ${hosts.names.join(", ")}: give ${ringNodes} with ${from}`,
    );
  const names = onFailure ? hosts.names.slice(0, ringNodes) : hosts.names;
  if (names.length < 2) throw refuse(`needs at least 2 hosts; the run has ${names.length}: ${names.join(", ")}`);
  // the suite's own groups are screened whatever the size: they say where the faults cluster
  const chosen: IsolatingPattern = onFailure ? (names.length > BISECT_UP_TO || spec.screen ? "adaptive" : "bisect") : (pattern as IsolatingPattern);
  if (spec.screen) {
    const problem = groupsProblem(names, spec.screen, `a host of the run (${names.join(", ")})`);
    if (problem) throw refuse(`screens the groups of "screen" first, and ${problem}`);
  }
  const screen = spec.screen && { screen: spec.screen };
  const opts = isolationOptions({ ...(spec.pairs !== undefined && { pairs: spec.pairs }), seed: seedOf(spec.name), ...screen });
  if (onFailure) {
    return {
      pattern: chosen,
      onFailure: true,
      hosts: names,
      seed: opts.seed,
      ...screen,
      rounds: [],
      later: `only if the whole-cluster run fails or hangs: ${chosen === "bisect" ? "bisection of its nodes" : `adaptive screening (${spec.screen ? `the ${spec.screen.length} groups of "screen"` : `groups of about √${names.length}`}), then bisection`}, each suspect confirmed against 2 healthy partners`,
    };
  }
  const known =
    chosen === "pairwise"
      ? (spec.pairs !== undefined ? randomMatchings(names, spec.pairs, opts.seed) : pairwiseRounds(names)).map((groups, i) => ({
          label: `round ${i + 1}`,
          phase: "pairwise",
          groups,
        }))
      : [isolation(chosen, names, opts).next()!];
  const count = plannedCount(chosen, names.length, opts);
  return {
    pattern: chosen,
    hosts: names,
    ...(spec.pairs !== undefined && { pairs: spec.pairs }),
    seed: opts.seed,
    ...screen,
    rounds: known.map((r) => ({ label: r.label, phase: r.phase, units: r.groups.map((g) => g.name) })),
    planned: count,
    later:
      chosen === "pairwise"
        ? "then a second pass: each suspect against 2 nodes that passed every pair, decided at run time"
        : chosen === "bisect"
          ? "then, if it fails or hangs, halves of the failing set until single nodes, each confirmed against 2 healthy partners, decided at run time"
          : "then bisection of each failing group and confirmation of each suspect against 2 healthy partners, decided at run time",
  };
}

/** Platforms that cannot yet run a round's groups side by side say so, rather than running the whole set each round. */
function refuseOn(name: string, refuse: (why: string) => SuiteError, registry?: PlatformRegistry): never {
  const able = platformNames(registry).filter((n) => getPlatform(n, registry)?.anyUnits);
  const list = able.length > 1 ? `${able.slice(0, -1).join(", ")} or ${able.at(-1)}` : able.join("");
  throw refuse(`runs groups of hosts side by side, and platform "${name}" runs a test only as one whole-cluster unit or one unit per node: use platform ${list}`);
}

/** The units of the first round the plan knows, as platforms run units. */
export function firstRoundUnits(iso: PlannedIsolation, ranksPerNode: number): PlannedUnit[] {
  const round = isolation(iso.pattern, iso.hosts, isolationOptions(iso)).next();
  // named as the run names them: the round, then the group
  return (round?.groups ?? []).map((g) => groupUnit({ name: `1.${g.name}`, nodes: g.nodes }, ranksPerNode));
}

/** A group of hosts as a unit: host-major ranks, named as the group is. */
export function groupUnit(g: { name: string; nodes: string[] }, ranksPerNode: number): PlannedUnit {
  return { name: g.name, nodes: g.nodes, ranks: ranksOn(g.nodes.length, ranksPerNode) };
}

export function isolationOptions(iso: Pick<PlannedIsolation, "pairs" | "seed" | "screen">): { pairs?: number; seed: number; groups?: Group[] } {
  return { ...(iso.pairs !== undefined && { pairs: iso.pairs }), seed: iso.seed, ...(iso.screen && { groups: iso.screen }) };
}

/** A seed the plan and the run agree on, so `pairs: k`'s random matchings are the ones `plan` printed. */
function seedOf(name: string): number {
  let h = 2166136261;
  for (const c of name) h = Math.imul(h ^ c.charCodeAt(0), 16777619) >>> 0;
  return h;
}
