// The docker platform: one container per node runs all of that node's ranks, through the Docker
// Engine API (dockerode) on the local engine, the one DOCKER_HOST names, or one engine per node:
// remote engines are reached like the Docker CLI reaches DOCKER_HOST=ssh://…, with the system ssh
// client running `docker system dial-stdio`. Works with podman's Docker-compatible API too.
// The run-time half (dockerode, child processes) is loaded only when a test runs.
import { DIAL_COMMAND, engineList, nodeName, sshBlock } from "./docker/engines.ts";
import { containersOf, imageOf, plannedMaster, RUN_LABEL, unitsOf } from "./docker/plan.ts";
import { settings, type ContainerBody, type DockerSettings } from "./docker/spec.ts";
import { planText } from "./docker/text.ts";
import { type EngineTls, transportText } from "./docker/tls.ts";
import { sshArgv } from "./_shared/ssh/argv.ts";
import { targetOf } from "./_shared/ssh/target.ts";
import { slot, slotsIn } from "../lib/core/slots.ts";
import { sha256 } from "../lib/core/sha256.ts";
import { describeSlots } from "./_shared/ssh/slots.ts";
import type { Manifest, Platform, RenderContext, RunContext } from "../lib/core/platform.ts";

/** Containers of one run carry this label on every engine: the sweep at the end finds them by it. */
export function runLabel(outDir: string): string {
  return sha256(outDir).slice(0, 12);
}

/** What the docker platform creates: per unit, each container's exact create body on its engine. */
export interface DockerManifest extends Manifest {
  engines: string[];
  dial?: Record<string, string[]>;
  /** how each tcp:// engine is reached: TLS with its files, or plain HTTP (platform.docker.insecureTcp) */
  transport?: Record<string, { tls: EngineTls } | { plainHttp: true }>;
  stage: string;
  units: Array<{ unit: string; containers: Array<{ engine: string; create: ContainerBody }> }>;
  text: string;
}

function render(ctx: RenderContext<DockerSettings>): DockerManifest {
  const engines = engineList(ctx.settings, ctx.cli, ctx.suite);
  const ssh = sshBlock(ctx.suite);
  const target = targetOf(ssh, ctx.suite, slot("controlDir"));
  // every API connection to an ssh engine: a channel on the host's ControlMaster
  const dial = engines.flatMap((e): Array<[string, string[]]> => (e.kind === "ssh" ? [[e.url, sshArgv(target, e.host, "mux", DIAL_COMMAND)]] : []));
  const tcp = engines.flatMap((e) => (e.kind === "tcp" ? [e] : []));
  const units = unitsOf(ctx.test, engines).map((u) => {
    const master = plannedMaster(u, ssh, ctx.test.perNode);
    return { unit: u.unit, master, containers: containersOf(ctx, u, master, slot("runId")) };
  });
  const manifest = {
    engines: engines.map((e) => e.url),
    ...(dial.length ? { dial: Object.fromEntries(dial) } : {}),
    stage: "workload copied into each container at /opt/gpucheck (put_archive)",
    units: units.map((u) => ({ unit: u.unit, containers: u.containers.map(({ node, body }) => ({ engine: node.engine, create: body })) })),
    ...(tcp.length ? { transport: Object.fromEntries(tcp.map((e) => [e.url, e.tls ? { tls: e.tls } : { plainHttp: true as const }])) } : {}),
    text: planText({ engines: engines.map((e) => e.url), image: imageOf(ctx), pull: ctx.settings.pull, dial, transport: tcp.map((e) => transportText(e.url, e.tls)), units }),
  };
  return {
    ...manifest,
    slots: describeSlots(slotsIn(manifest), "a hash of the run's results directory (container names and the gpucheck.run label the end-of-run sweep finds them by)"),
  };
}

export const docker: Platform<DockerSettings, DockerManifest> = {
  name: "docker",
  summary: "one container per node via the Docker Engine API (also podman's), remote engines over ssh; GPUs by device request",
  flags: ["hosts", "image", "keep"],
  // each unit on its own hosts, all of a round at once: the isolating patterns run here
  anyUnits: true,
  settings,
  // one engine runs every node's container side by side; several engines are one node each
  hosts: (ctx) => {
    const engines = engineList(ctx.settings, ctx.cli, ctx.suite);
    return { names: engines.map(nodeName), separate: engines.length > 1 };
  },
  render,
  run: async (ctx: RunContext<DockerSettings>) => (await import("./docker/run.ts")).runDocker(ctx, runLabel(ctx.outDir)),
};

export { RUN_LABEL };
