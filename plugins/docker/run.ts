// Impure half of the docker platform: create, inject, start, stream, wait, remove.
import { createWriteStream, mkdirSync, type WriteStream } from "node:fs";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import Docker from "dockerode";
import { PlatformError } from "../../lib/errors.ts";
import type { RankLog, UnitRun, UnitStatus } from "../../lib/types.ts";
import { tarFiles } from "../_tar.ts";
import type { RunContext } from "../types.ts";
import type { ContainerBody, DockerSettings, NodeSpec } from "./spec.ts";
import { STAGE } from "./spec.ts";

type Planned = Array<Array<{ node: NodeSpec; body: ContainerBody }>>;

export function client(engine: string): Docker {
  if (engine.startsWith("unix://")) return new Docker({ socketPath: engine.slice("unix://".length) });
  const u = new URL(engine);
  if (u.protocol === "ssh:") return new Docker({ protocol: "ssh", host: u.hostname, port: Number(u.port || 22), username: u.username || undefined } as Docker.DockerOptions);
  return new Docker({ protocol: u.protocol === "https:" ? "https" : "http", host: u.hostname, port: Number(u.port || 2375) });
}

function apiMessage(err: unknown): string {
  const e = err as { statusCode?: number; json?: { message?: string }; reason?: string; message?: string; code?: string };
  return e.json?.message ?? e.reason ?? e.code ?? e.message ?? String(err);
}

async function ensureImage(d: Docker, image: string, pull: DockerSettings["pull"], engine: string, note: (m: string) => void, signal: AbortSignal): Promise<void> {
  let present = true;
  try {
    await d.getImage(image).inspect();
  } catch (err) {
    if ((err as { statusCode?: number }).statusCode !== 404) throw new PlatformError(`docker engine ${engine}: ${apiMessage(err)}`);
    present = false;
  }
  if (present && pull !== "always") return;
  if (!present && pull === "never") throw new PlatformError(`image "${image}" is not on engine ${engine} and platform.docker.pull is "never"`);
  note(`pulling ${image} on ${engine}`);
  let lastError: string | undefined;
  try {
    const stream = await d.pull(image, { abortSignal: signal } as object);
    await new Promise<void>((resolve, reject) => {
      let last = 0;
      d.modem.followProgress(
        stream,
        (err: Error | null) => (err ? reject(err) : resolve()),
        (ev: { status?: string; progress?: string; id?: string; error?: string }) => {
          if (ev.error) lastError = ev.error;
          if (Date.now() - last > 2000) {
            last = Date.now();
            note(`pull ${image}: ${[ev.id, ev.status, ev.progress].filter(Boolean).join(" ")}`);
          }
        },
      );
    });
  } catch (err) {
    lastError = apiMessage(err);
  }
  // podman reports a failed pull inside a successful stream: trust only the image being there
  const pulled = await d.getImage(image).inspect().then(() => true, () => false);
  if (!pulled) {
    throw new PlatformError(`image "${image}" is not on engine ${engine} and pulling it failed: ${lastError ?? "the engine did not say why"}`);
  }
}

interface Started {
  node: NodeSpec;
  container: Docker.Container;
  done: Promise<number | null>;
  logs: Map<number, WriteStream>;
}

/**
 * Podman's Docker-compatible API (seen with 4.3.1) accepts DeviceRequests and silently drops them:
 * a GPU test would then run without GPUs. Refuse instead of measuring the wrong thing.
 */
async function checkGpuSupport(d: Docker, engine: string, wantsGpus: boolean): Promise<void> {
  if (!wantsGpus) return;
  const v = (await d.version().catch(() => ({}))) as { Components?: Array<{ Name: string; Version: string }> };
  const podman = v.Components?.find((c) => /podman/i.test(c.Name));
  if (podman) {
    throw new PlatformError(`engine ${engine} is ${podman.Name} ${podman.Version}, whose Docker-compatible API ignores GPU device requests: the containers would see no GPU; use Docker Engine with the NVIDIA container toolkit, or run this test with gpusPerNode: 0`);
  }
}

export async function runUnits(ctx: RunContext<DockerSettings>, planned: Planned, runId: string): Promise<UnitRun[]> {
  const clients = new Map<string, Docker>();
  const get = (engine: string) => clients.get(engine) ?? clients.set(engine, client(engine)).get(engine)!;
  const image = planned[0]?.[0]?.body.Image;
  try {
    for (const engine of new Set(planned.flat().map((p) => p.node.engine))) {
      await checkGpuSupport(get(engine), engine, planned.flat().some((p) => p.body.HostConfig.DeviceRequests !== undefined));
      await ensureImage(get(engine), image!, ctx.settings.pull, engine, ctx.note, ctx.signal);
    }
    return await Promise.all(planned.map((unit) => runUnit(ctx, unit, get)));
  } catch (err) {
    if (!(err instanceof PlatformError)) throw err;
    const now = new Date().toISOString();
    return planned.map((unit) => ({
      unit: ctx.test.perNode ? unit[0]!.node.node : "all",
      hosts: unit.map((u) => u.node.node),
      status: "infra" as const,
      message: err.message,
      startedAt: now,
      endedAt: now,
      ranks: [],
      output: "",
      tail: "",
    }));
  } finally {
    if (!ctx.cli.keep) await removeRun(clients, runId);
  }
}

async function runUnit(ctx: RunContext<DockerSettings>, unit: Planned[number], get: (e: string) => Docker): Promise<UnitRun> {
  const unitName = ctx.test.perNode ? unit[0]!.node.node : "all";
  const dir = join(ctx.logDir, unitName);
  mkdirSync(dir, { recursive: true });
  const startedAt = new Date().toISOString();
  const tail: string[] = [];
  const output: string[] = [];
  const started: Started[] = [];
  let infra: string | undefined;
  const archive = tarFiles(new Map([...ctx.workload].map(([p, t]) => [`${STAGE.slice(1)}/${p}`, t])));
  try {
    for (const { node, body } of unit) {
      const d = get(node.engine);
      const { name, ...rest } = body;
      const container = await d.createContainer({ name, ...rest } as Docker.ContainerCreateOptions);
      await container.putArchive(Buffer.from(archive), { path: "/" });
      const stream = await container.attach({ stream: true, stdout: true, stderr: true });
      const logs = new Map<number, WriteStream>();
      const sink = lineSink((line) => {
        const m = /^\[rank (\d+)\] (.*)$/.exec(line);
        const rank = m ? Number(m[1]) : -1;
        const text = m ? m[2]! : line;
        if (rank >= 0) {
          if (!logs.has(rank)) logs.set(rank, createWriteStream(join(dir, `rank-${rank}.log`)));
          logs.get(rank)!.write(`${text}\n`);
          if (rank === 0) output.push(text);
        }
        if (!text.includes("GPUCHECK_TELEMETRY")) tail.push(`[${node.node} rank ${rank < 0 ? "-" : rank}] ${text}`);
        if (tail.length > 200) tail.splice(0, tail.length - 200);
        ctx.onLine(unitName, Math.max(rank, 0), text);
      });
      d.modem.demuxStream(stream, sink, sink);
      await container.start();
      const done = container.wait().then((r: { StatusCode?: number }) => r.StatusCode ?? null, () => null);
      started.push({ node, container, done, logs });
    }
  } catch (err) {
    infra = err instanceof PlatformError ? err.message : `docker: ${apiMessage(err)}`;
    if (/setting rlimit/.test(infra)) infra += " (the engine may not raise memlock/stack here: set platform.docker.ulimits: false)";
  }

  const stop = () => Promise.all(started.map((s) => s.container.stop({ t: ctx.settings.stopGraceS }).catch(() => undefined)));
  const onAbort = () => void stop();
  ctx.signal.addEventListener("abort", onAbort, { once: true });
  if (infra) await stop();
  // a failed node leaves its peers waiting in a collective: stop the unit when one container fails
  const codes = await Promise.all(
    started.map(async (s) => {
      const code = await s.done;
      if (code !== 0) void stop();
      return code;
    }),
  );
  ctx.signal.removeEventListener("abort", onAbort);
  await Bun.sleep(100); // let the attach streams deliver their last lines
  for (const s of started) for (const w of s.logs.values()) await new Promise((r) => w.end(r));

  const ranks: RankLog[] = started.flatMap((s, i) =>
    Array.from({ length: ctx.test.ranksPerNode }, (_, l) => {
      const rank = s.node.nodeRank * ctx.test.ranksPerNode + l;
      return { rank, host: s.node.node, path: join(dir, `rank-${rank}.log`), exitCode: codes[i] ?? null };
    }),
  );
  let status: UnitStatus = "completed";
  let message: string | undefined;
  if (ctx.signal.aborted) {
    status = ctx.signal.reason === "timeout" ? "timeout" : "cancelled";
    message = `${status === "timeout" ? `timed out after ${Math.round(ctx.test.timeoutMs / 1000)}s` : "cancelled"}: stopped containers ${started.map((s) => `${s.node.node}:${s.container.id.slice(0, 12)}`).join(", ")}`;
  } else if (infra) {
    status = "infra";
    message = infra;
  } else {
    const bad = codes.findIndex((c) => c !== 0);
    if (bad >= 0) {
      status = "failed";
      const why = [...tail].reverse().find((l) => l.includes("gpucheck-workload: error: "));
      const rank = /gpucheck-launch: rank (\d+)/.exec(tail.join("\n"))?.[1];
      message = `container on ${started[bad]!.node.node} exited with ${codes[bad] ?? "no status"}${rank ? ` (rank ${rank})` : ""}${why ? `: ${why.slice(why.indexOf("gpucheck-workload: error: ") + 26)}` : ""}`;
    }
  }
  return {
    unit: unitName,
    hosts: unit.map((u) => u.node.node),
    status,
    ...(message ? { message } : {}),
    startedAt,
    endedAt: new Date().toISOString(),
    ranks,
    output: output.join("\n"),
    tail: tail.slice(-40).join("\n"),
  };
}

function lineSink(onLine: (line: string) => void): PassThrough {
  const s = new PassThrough();
  let partial = "";
  s.setEncoding("utf8");
  s.on("data", (chunk: string) => {
    const parts = (partial + chunk).split("\n");
    partial = parts.pop()!;
    for (const l of parts) onLine(l.replace(/\r$/, ""));
  });
  s.on("end", () => partial && onLine(partial));
  return s;
}

/** Kills and removes every container labelled with this run, on every engine used. */
export async function removeRun(clients: Map<string, Docker>, runId: string): Promise<void> {
  for (const d of clients.values()) {
    const list = await d.listContainers({ all: true, filters: { label: [`gpucheck.run=${runId}`] } }).catch(() => []);
    await Promise.all(list.map((c) => d.getContainer(c.Id).remove({ force: true }).catch(() => undefined)));
  }
}
