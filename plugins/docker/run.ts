// Impure half of the docker platform: reach the engines (over ssh where they are remote), learn
// each unit's rendezvous, get every engine ready once, run the units, and remove the run's
// containers from every engine it touched, whatever happened.
import type Docker from "dockerode";
import { PlatformError, SuiteError } from "../../lib/core/errors.ts";
import type { UnitRun } from "../../lib/core/types.ts";
import { freePort } from "../_shared/free-port.ts";
import { ended, stopReason, unitResult } from "../_shared/unit-result.ts";
import type { RunContext } from "../../lib/core/platform.ts";
import { client, removeRun } from "./client.ts";
import { engineList, sshBlock, type Engine } from "./engines.ts";
import { prepareEngine } from "./image.ts";
import { containersOf, imageOf, plannedMaster, RUN_LABEL, unitsOf, type Master, type Planned, type UnitPlan } from "./plan.ts";
import { bindSlots, complete, slot } from "../../lib/core/slots.ts";
import { openSshEngines, type Probe, type SshEngines } from "./remote.ts";
import { deviceRequests, type DockerSettings } from "./spec.ts";
import { runUnit } from "./unit.ts";

export async function runDocker(ctx: RunContext<DockerSettings>, runId: string): Promise<UnitRun[]> {
  const ssh = sshBlock(ctx.suite);
  let units: UnitPlan[];
  try {
    units = unitsOf(ctx.test, engineList(ctx.settings, ctx.cli, ctx.suite));
  } catch (e) {
    throw e instanceof SuiteError ? new PlatformError(e.message.replace(/^gpucheck: /, "")) : e;
  }
  const byUrl = new Map(units.flatMap((u) => u.nodes.map((n) => [n.engine.url, n.engine] as const)));
  const sshHosts = [...byUrl.values()].flatMap((e) => (e.kind === "ssh" ? [e.host] : []));
  // where a rendezvous lives (each unit's first node) the port must be free on that host
  const rendezvous = new Set(units.map((u) => u.nodes[0]!.engine).flatMap((e) => (e.kind === "ssh" ? [e.host.name] : [])));
  const remote = sshHosts.length ? openSshEngines(sshHosts, (h) => rendezvous.has(h.name) && !ssh.masterPort, ssh, ctx.suite, ctx.signal) : undefined;
  const clients = new Map<string, Docker>();
  const get = (url: string) => clients.get(url) ?? clients.set(url, client(byUrl.get(url)!, remote)).get(url)!;
  const ready = new Map<string, Promise<void>>();
  const wantsGpus = deviceRequests(ctx.settings, ctx.test.gpusPerNode).length > 0;
  const prepare = (url: string) =>
    ready.get(url) ?? ready.set(url, prepareEngine(get(url), url, { image: imageOf(ctx), pull: ctx.settings.pull, wantsGpus, note: ctx.note, signal: ctx.signal })).get(url)!;

  const runOne = async (u: UnitPlan): Promise<UnitRun> => {
    const startedAt = new Date().toISOString();
    try {
      const probes = await Promise.all(u.nodes.map((n) => probeOf(n.engine, remote)));
      const down = probes.find((p): p is Extract<Probe, { ok: false }> => !p.ok);
      if (down) throw new PlatformError(down.message);
      const master = await masterOf(u, probes[0]!, ssh, ctx.test.perNode);
      await Promise.all([...new Set(u.nodes.map((n) => n.engine.url))].map(prepare));
      const planned = boundContainers(ctx, u, ssh, master, runId);
      return await runUnit(ctx, u.unit, planned, { client: get, lost: (url) => lostOf(byUrl.get(url)!, remote) });
    } catch (err) {
      if (!(err instanceof PlatformError)) throw err;
      return notRun(ctx, u, err.message, startedAt);
    }
  };

  try {
    return await Promise.all(units.map(async (u) => ended(ctx, await runOne(u))));
  } finally {
    const removal = `docker rm -f $(docker ps -aq --filter label=${RUN_LABEL}=${runId})`;
    if (ctx.cli.keep) ctx.note(`kept the containers of ${ctx.test.name} (--keep); to remove them on each engine: ${removal}`);
    else for (const f of await removeRun(clients, runId)) ctx.note(`could not remove the containers of this run from ${f}; where the engine is back: ${removal}`);
    await remote?.close();
  }
}

function probeOf(e: Engine, remote: SshEngines | undefined): Promise<Probe> {
  return e.kind === "ssh" ? remote!.probe(e.host) : Promise.resolve({ ok: true, addr: "" });
}

function lostOf(e: Engine, remote: SshEngines | undefined): string | undefined {
  return e.kind === "ssh" ? remote!.dialer(e.host).lastFailure() : undefined;
}

/** The planned rendezvous with what the run learnt: the address ssh reached the host on, a port free there. */
async function masterOf(u: UnitPlan, probe: Probe, ssh: { masterAddr?: string; masterPort?: number }, perNode: boolean): Promise<Master> {
  const planned = plannedMaster(u, ssh, perNode);
  if (u.nodes[0]!.engine.kind !== "ssh" || !probe.ok) return { addr: planned.addr, port: await freePort() };
  return {
    addr: (!perNode && ssh.masterAddr) || probe.addr,
    port: ssh.masterPort ?? probe.port!,
  };
}

/**
 * The unit's containers exactly as `gpucheck plan` renders them, with this run's values bound into
 * their slots: the run id, and the rendezvous where the plan could only name it.
 */
export function boundContainers(ctx: RunContext<DockerSettings>, u: UnitPlan, ssh: { masterAddr?: string; masterPort?: number }, master: Master, runId: string): Planned {
  const planned = plannedMaster(u, ssh, ctx.test.perNode);
  const values: Record<string, string | number> = { runId };
  for (const [key, value] of [
    [planned.addr, master.addr],
    [planned.port, master.port],
  ] as const) {
    const name = typeof key === "string" ? /^\{\{(.+)\}\}$/.exec(key)?.[1] : undefined;
    if (name) values[name] = value;
  }
  return complete(bindSlots(containersOf(ctx, u, planned, slot("runId")), values), Object.keys(values), `the containers of unit ${u.unit}`);
}

/** A unit that never started its containers: infra, or how the run was stopped meanwhile. */
function notRun(ctx: RunContext<DockerSettings>, u: UnitPlan, message: string, startedAt: string): UnitRun {
  const stopped = ctx.signal.aborted ? { by: stopReason(ctx.signal), timeoutMs: ctx.test.timeoutMs, what: `before the containers started: ${message}` } : undefined;
  return unitResult({ unit: u.unit, hosts: u.nodes.map((n) => n.node), startedAt, ...(stopped ? { stopped } : { infra: [message] }) });
}
