// Which of the run's hosts each test uses. A host given to the run and left idle is a mistake the
// user hears about (`gpucheck plan`, and on stderr when a suite starts), never silently.
import { SuiteError } from "../core/errors.ts";
import type { Placement } from "../core/types.ts";
import type { RunHosts } from "../core/platform.ts";

export function placementOf(test: { name: string; nodes: number; perNode: boolean; nodesSet?: boolean }, hosts: RunHosts): Placement {
  // every platform puts a test on the first `nodes` hosts, in the order given (plugins/*/unitsOf, srun)
  if (test.perNode || !hosts.separate) return { hosts: hosts.names, unused: [] };
  const used = hosts.names.slice(0, test.nodes);
  const unused = hosts.names.slice(test.nodes);
  if (!unused.length) return { hosts: used, unused };
  const all = hosts.names.length;
  const advice =
    test.nodes === 1
      ? "pass --each-node to run it on every host"
      : test.nodesSet
        ? `the test asks for ${test.nodes} nodes (set its nodes: to ${all} to use every host)`
        : `the suite asks for ${test.nodes} nodes (pass --nodes ${all} to use every host)`;
  return { hosts: used, unused, warning: `test "${test.name}" runs on ${used.join(", ")}; ${unused.join(", ")} unused: ${advice}` };
}

/** `--nodes N`: a positive integer, and no more nodes than hosts where each node needs its own. */
export function nodesFlag(text: string): number {
  if (!/^\d+$/.test(text.trim()) || Number(text) < 1) throw new SuiteError(`gpucheck: --nodes: must be a positive integer, got "${text}"`);
  return Number(text);
}

export function checkNodesFit(nodes: number, platform: string, hosts: RunHosts | undefined): void {
  if (!hosts?.separate || nodes <= hosts.names.length) return;
  const n = hosts.names.length;
  throw new SuiteError(`gpucheck: --nodes ${nodes} needs ${nodes} hosts but ${platform} has ${n}: ${hosts.names.join(", ")}; pass --nodes ${n} or more hosts with --hosts`);
}
