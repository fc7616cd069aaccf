// Pure: which containers a test becomes, on which engines, with which rendezvous. The same
// functions serve `gpucheck plan` (named slots for what only the run learns: the address ssh
// reached the first host on, a free port there) and the run itself.
import { PlatformError, SuiteError } from "../../lib/core/errors.ts";
import { unitsOfTest } from "../../lib/core/planned-units.ts";
import type { PlannedTest, PlannedUnit } from "../../lib/core/types.ts";
import { slot } from "../../lib/core/slots.ts";
import type { RenderContext } from "../../lib/core/platform.ts";
import { nodeName, type Engine } from "./engines.ts";
import { containerBody, DEFAULT_IMAGE, type ContainerBody, type DockerSettings, type NodeSpec } from "./spec.ts";

export const RUN_LABEL = "gpucheck.run";

export interface NodePlan {
  node: string;
  nodeRank: number;
  engine: Engine;
}

export interface UnitPlan {
  /** "all", or the node's name in per-node mode */
  unit: string;
  nodes: NodePlan[];
}

/** MASTER_ADDR/MASTER_PORT of a unit; the port is a named slot in `gpucheck plan`. */
export interface Master {
  addr: string;
  port: number | string;
}

export type Planned = Array<{ node: NodeSpec; body: ContainerBody }>;

/**
 * Per-node mode: one unit per engine. Otherwise one unit on the first `nodes` engines, or every
 * node on the only engine given (several containers on one machine: how multi-node is tried locally).
 */
export function unitsOf(test: Pick<PlannedTest, "name" | "nodes" | "perNode"> & { units?: PlannedUnit[] }, engines: Engine[]): UnitPlan[] {
  if (!test.perNode && engines.length > 1 && engines.length < test.nodes) {
    throw new SuiteError(
      `gpucheck: docker: test "${test.name}" needs ${test.nodes} nodes but ${engines.length} engines were given: ${engines.map((e) => e.url).join(", ")}; give ${test.nodes} with --hosts`,
    );
  }
  const byName = new Map(engines.map((e) => [nodeName(e), e]));
  // a container runs all of its node's ranks itself: only the nodes of each unit matter here
  return unitsOfTest({ ranksPerNode: 1, ...test }, { names: [...byName.keys()], separate: engines.length > 1 }).map((u) => ({
    unit: u.name,
    nodes: u.nodes.map((name, i) => {
      const engine = byName.get(name);
      if (!engine) throw new PlatformError(`docker: unit "${u.name}" names node "${name}", which is no engine's: ${[...byName.keys()].join(", ")}`);
      // several nodes on one engine are told apart by a suffix: localhost, localhost-1, …
      return { node: u.nodes.indexOf(name) < i ? `${name}-${i}` : name, nodeRank: i, engine };
    }),
  }));
}

export function imageOf(ctx: Pick<RenderContext<DockerSettings>, "cli" | "settings">): string {
  return ctx.cli.image ?? ctx.settings.image ?? DEFAULT_IMAGE;
}

const safe = (s: string) => s.replace(/[^A-Za-z0-9_.-]/g, "-");

/** The create body of each of the unit's containers; labels let every engine find the run's containers. */
export function containersOf(ctx: RenderContext<DockerSettings>, unit: UnitPlan, master: Master, runId: string): Planned {
  return unit.nodes.map(({ node: name, nodeRank, engine }) => {
    const node: NodeSpec = { node: name, nodeRank, engine: engine.url, masterAddr: ctx.test.perNode ? "127.0.0.1" : master.addr, masterPort: master.port };
    return {
      node,
      body: containerBody({
        settings: ctx.settings,
        image: imageOf(ctx),
        launch: ctx.launch,
        ranksPerNode: ctx.test.ranksPerNode,
        worldSize: ctx.test.worldSize,
        gpusPerNode: ctx.test.gpusPerNode,
        node,
        labels: { [RUN_LABEL]: runId, "gpucheck.test": ctx.test.name, "gpucheck.node": name },
        name: `gpucheck-${runId}-${safe(ctx.test.name)}-${safe(name)}`,
      }),
    };
  });
}

/**
 * The rendezvous before the run learns it. An ssh engine's host is reached at the address its sshd
 * saw the connection on, unless platform.ssh.masterAddr says otherwise; other engines' hosts by
 * their URL's host name (127.0.0.1 for a local socket).
 */
export function plannedMaster(unit: UnitPlan, ssh: { masterAddr?: string; masterPort?: number }, perNode: boolean): Master {
  const first = unit.nodes[0]!;
  const e = first.engine;
  const addr = e.kind === "ssh" ? (!perNode && ssh.masterAddr) || slot(`masterAddr:${first.node}`) : e.kind === "tcp" ? e.host : "127.0.0.1";
  const port = (e.kind === "ssh" && ssh.masterPort) || slot(`masterPort:${e.kind === "ssh" ? first.node : "local"}`);
  return { addr, port };
}
