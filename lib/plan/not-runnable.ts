// A test the chosen platform cannot run as written, planned rather than refused: the plan says so
// and the run records it as an error, so the rest of the suite still runs and the run never passes.
// Today one case: a ring test with `onFailure: isolate` (a rack-wide test such as gb200-nvl72's
// MNNVL all-reduce) on a platform that runs every node on one machine (local, one GB200 tray):
// its nodes are not there, and simulating 18 nodes on one tray would measure nothing of the rack.
import { patternOf } from "../core/pattern.ts";
import { getPlatform, platformNames, type Platform, type PlatformRegistry } from "../core/platform.ts";
import type { TestSpec } from "../core/types.ts";

/** Why the test cannot run on the platform (one line, the run's error message), or undefined when it can. */
export function notRunnableOn(spec: TestSpec, platform: Pick<Platform, "name" | "anyUnits">, nodes: number, registry?: PlatformRegistry): string | undefined {
  // one node (--nodes 1) isolates nothing: the plan refuses it as on every platform (lib/plan/pattern.ts)
  if (platform.anyUnits || spec.onFailure !== "isolate" || patternOf(spec) !== "ring" || nodes < 2) return undefined;
  return (
    `test "${spec.name}" needs its ${nodes} nodes on hosts of their own ("onFailure: isolate" names the node behind a failure), ` +
    `and platform "${platform.name}" runs every node on this one machine: not run, recorded as an error so the run cannot pass; ` +
    `run it on ${whereTo(nodes, registry)}`
  );
}

/** "platform ssh, slurm or docker with 18 hosts in --hosts, or k8s with 18 in platform.k8s.nodes in the suite" */
function whereTo(nodes: number, registry?: PlatformRegistry): string {
  const byWay = new Map<string, string[]>();
  for (const name of platformNames(registry)) {
    const p = getPlatform(name, registry);
    if (!p?.anyUnits) continue;
    const way = p.hostsFrom ?? "--hosts";
    byWay.set(way, [...(byWay.get(way) ?? []), name]);
  }
  const ways = [...byWay].map(([way, names]) => `${orList(names)} with ${nodes} hosts in ${way}`);
  return `platform ${orList(ways, ", or ")}`;
}

function orList(items: string[], last = " or "): string {
  return items.length > 1 ? `${items.slice(0, -1).join(", ")}${last}${items.at(-1)}` : (items[0] ?? "");
}
