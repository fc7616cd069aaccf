// Where ranks go. Pure: the same function serves `gpucheck plan` (with named slots for what only
// the run knows: the master port, the run id) and the run itself.
import { PlatformError } from "../../lib/core/errors.ts";
import { unitsOfTest } from "../../lib/core/planned-units.ts";
import type { Launch, PlannedTest, PlannedUnit } from "../../lib/core/types.ts";
import { rankEnv } from "../../lib/core/platform.ts";
import type { RemoteProc } from "../_shared/ssh/argv.ts";
import type { HostSpec } from "../_shared/ssh/hosts.ts";

export type { RemoteProc };

export type Launcher = "direct" | "gpucheck" | "torchrun" | "mpirun";

/**
 * A per-node unit whose host runs one process (a launcher, or its one rank) gets it in the host's
 * first ssh (scripts.ts onePassScript). torchrun and mpirun take the rendezvous on their command
 * line, where the host's shell does not reach: they keep the prepare's round trip.
 */
export function onePass(u: UnitLayout, procs: RemoteProc[], launcher: Launcher): RemoteProc | undefined {
  return u.unit !== "all" && u.hosts.length === 1 && procs.length === 1 && (launcher === "gpucheck" || launcher === "direct") ? procs[0] : undefined;
}

/** sshd's default MaxSessions is 10: ranks beyond this many per host get their own connection. */
export const MUX_SESSIONS = 8;

export interface UnitLayout {
  /** "all", or the host's name in per-node mode */
  unit: string;
  hosts: HostSpec[];
  worldSize: number;
  ranksPerNode: number;
}

/** The test's units (lib/core/planned-units.ts: the first `nodes` hosts, or one unit per host) on these hosts. */
export function unitsOf(test: Pick<PlannedTest, "nodes" | "ranksPerNode" | "perNode"> & { units?: PlannedUnit[] }, hosts: HostSpec[]): UnitLayout[] {
  const byName = new Map(hosts.map((h) => [h.name, h]));
  return unitsOfTest(test, { names: hosts.map((h) => h.name), separate: true }).map((u) => ({
    unit: u.name,
    hosts: u.nodes.map((n) => {
      const h = byName.get(n);
      if (!h) throw new PlatformError(`ssh: unit "${u.name}" names node "${n}", which is not among the hosts: ${[...byName.keys()].join(", ")}`);
      return h;
    }),
    worldSize: u.ranks.length,
    ranksPerNode: test.ranksPerNode,
  }));
}

export interface Rendezvous {
  addr: string;
  port: string;
}

export function procsOf(u: UnitLayout, launch: Launch, python: string, launcher: Launcher, master: Rendezvous, extraEnv: Record<string, string>): RemoteProc[] {
  const R = u.ranksPerNode;
  const range = (from: number, n: number) => Array.from({ length: n }, (_, i) => from + i);
  const base = { ...launch.env, ...extraEnv };
  // ranks started side by side on a host each bind to their own CPUs (workload affinity.py); the
  // workload's launcher sets it itself, mpirun binds on its own, a suite's env may say "none"
  const split = { GPUCHECK_CPU_BIND: "split", ...base };
  if (launcher === "mpirun") {
    // one mpirun on the first host starts every rank over its own remote shell (Open MPI's plm_rsh)
    const hostArg = u.hosts.map((h) => `${h.host}:${R}`).join(",");
    const env = { ...base, MASTER_ADDR: master.addr, MASTER_PORT: master.port };
    const exports = Object.keys(env)
      .flatMap((k) => ["-x", k])
      .concat(["-x", "PYTHONPATH"]);
    const argv = ["mpirun", "-np", String(u.worldSize), "--host", hostArg, "--map-by", `ppr:${R}:node`, ...exports, python, ...launch.args];
    return [{ id: 0, hostIndex: 0, host: u.hosts[0]!, ranks: range(0, u.worldSize), argv, env, mux: true }];
  }
  // one launcher per host, starting that host's R ranks itself
  const perHost = (argv: (i: number) => string[], env: (host: HostSpec) => Record<string, string>): RemoteProc[] =>
    u.hosts.map((host, i) => ({ id: i * R, hostIndex: i, host, ranks: range(i * R, R), argv: argv(i), env: env(host), mux: true }));
  // the workload's own launcher: it sets RANK/LOCAL_RANK per child and prefixes their lines; a host
  // with one rank runs that rank itself (below), as a Python start fewer on every host of a fleet
  if (launcher === "gpucheck" && R > 1) {
    return perHost(
      (i) => [python, "-m", "gpucheck_workload.launch", "--nprocs", String(R), "--node-rank", String(i), "--", ...launch.args],
      (host) => ({ ...base, WORLD_SIZE: String(u.worldSize), MASTER_ADDR: master.addr, MASTER_PORT: master.port, GPUCHECK_NODE: host.name }),
    );
  }
  if (launcher === "torchrun") {
    const flags = [`--nnodes=${u.hosts.length}`, `--nproc_per_node=${R}`, `--master_addr=${master.addr}`, `--master_port=${master.port}`];
    return perHost(
      (i) => [python, "-m", "torch.distributed.run", ...flags, `--node_rank=${i}`, ...launch.args],
      (host) => ({ ...split, GPUCHECK_NODE: host.name }),
    );
  }
  return u.hosts.flatMap((host, i) =>
    range(0, R).map((local) => {
      const rank = i * R + local;
      const env = {
        ...split,
        ...rankEnv({ rank, worldSize: u.worldSize, localRank: local, localWorldSize: R, masterAddr: master.addr, masterPort: 0, node: host.name }),
        MASTER_PORT: master.port,
      };
      return { id: rank, hostIndex: i, host, ranks: [rank], argv: [python, ...launch.args], env, mux: local < MUX_SESSIONS };
    }),
  );
}

/**
 * The suite's env as every process of the test gets it (no rank variable of gpucheck's replaces
 * it): sent on each ssh's stdin (scripts.ts envBlock), never in a command line, where `ps` on the
 * jump host and on the node would show it to every user.
 */
export function envOnStdin(launch: Launch, procs: readonly RemoteProc[]): Record<string, string> {
  return Object.fromEntries(Object.entries(launch.env).filter(([k, v]) => procs.every((p) => p.env[k] === v)));
}
