// The docker platform: one container per node runs all of that node's ranks, through the Docker
// Engine API (dockerode) on the local engine, the one DOCKER_HOST names, or one engine per node.
// Works with podman's Docker-compatible API too.
import { createHash } from "node:crypto";
import { createServer } from "node:net";
import type { Platform, RenderContext, RunContext } from "./types.ts";
import { DEFAULT_IMAGE, containerBody, settings, type DockerSettings, type NodeSpec } from "./docker/spec.ts";

const RUN_LABEL = "gpucheck.run";

export function engines(s: DockerSettings, cliHosts?: string[]): string[] {
  if (s.hosts?.length) return s.hosts;
  if (cliHosts?.length) return cliHosts.map((h) => (h.includes("://") ? h : `ssh://${h}`));
  return [process.env.DOCKER_HOST || "unix:///var/run/docker.sock"];
}

/** The address other nodes reach an engine's host at (host networking). */
export function engineAddress(engine: string): string {
  if (engine.startsWith("unix://")) return "127.0.0.1";
  const u = new URL(engine);
  return u.hostname;
}

export function runLabel(outDir: string): string {
  return createHash("sha256").update(outDir).digest("hex").slice(0, 12);
}

export function planNodes(ctx: RenderContext<DockerSettings>, masterPort: number): NodeSpec[][] {
  const list = engines(ctx.settings, ctx.cli.hosts);
  if (ctx.test.perNode) {
    return list.map((engine, i) => [{ node: nodeName(engine, i), nodeRank: 0, engine, masterAddr: "127.0.0.1", masterPort }]);
  }
  const use = list.length === 1 ? Array(ctx.test.nodes).fill(list[0]) : list.slice(0, ctx.test.nodes);
  const master = engineAddress(use[0]!);
  return [use.map((engine, i) => ({ node: nodeName(engine, i), nodeRank: i, engine, masterAddr: master, masterPort }))];
}

function nodeName(engine: string, i: number): string {
  return engine.startsWith("unix://") ? (i === 0 ? "localhost" : `localhost-${i}`) : engineAddress(engine);
}

function bodies(ctx: RenderContext<DockerSettings>, runId: string, masterPort: number) {
  const image = ctx.cli.image ?? ctx.settings.image ?? DEFAULT_IMAGE;
  return planNodes(ctx, masterPort).map((unit) =>
    unit.map((node) => ({
      node,
      body: containerBody({
        settings: ctx.settings,
        image,
        launch: ctx.launch,
        ranksPerNode: ctx.test.ranksPerNode,
        worldSize: ctx.test.worldSize,
        gpusPerNode: ctx.test.gpusPerNode,
        node,
        labels: { [RUN_LABEL]: runId, "gpucheck.test": ctx.test.name, "gpucheck.node": node.node },
        name: `gpucheck-${runId}-${ctx.test.name.replace(/[^A-Za-z0-9_.-]/g, "-")}-${node.node.replace(/[^A-Za-z0-9_.-]/g, "-")}`,
      }),
    })),
  );
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

async function run(ctx: RunContext<DockerSettings>) {
  const { runUnits } = await import("./docker/run.ts");
  const runId = runLabel(ctx.outDir);
  const port = await freePort();
  return runUnits(ctx, bodies(ctx, runId, port), runId);
}

export const docker: Platform<DockerSettings> = {
  name: "docker",
  summary: "one container per node via the Docker Engine API (also podman's); GPUs by device request",
  settings,
  render: (ctx) => ({
    engines: engines(ctx.settings, ctx.cli.hosts),
    stage: "workload copied into each container at /opt/gpucheck (put_archive)",
    units: bodies(ctx, "<run>", 29500).map((u) => u.map(({ node, body }) => ({ engine: node.engine, create: body }))),
  }),
  run,
};

export { RUN_LABEL };
