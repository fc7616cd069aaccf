// One unit (the whole test, or one node in per-node mode): create its containers, inject the
// workload, start them, stream their ranks' lines, wait, and turn exit codes into a verdict.
// A container that fails stops its peers: they would wait in a collective until the timeout.
import { createWriteStream, mkdirSync, type WriteStream } from "node:fs";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import type Docker from "dockerode";
import type { RankLog, UnitRun, UnitStatus } from "../../lib/types.ts";
import { tarFiles } from "../_tar.ts";
import { lastWorkloadError } from "../local.ts";
import type { RunContext } from "../types.ts";
import { engineMessage } from "./client.ts";
import type { Planned } from "./plan.ts";
import { STAGE, type DockerSettings, type NodeSpec } from "./spec.ts";

export interface UnitEngines {
  client(url: string): Docker;
  /** why the engine's connection was lost, when it was (ssh engines) */
  lost(url: string): string | undefined;
}

interface Started {
  node: NodeSpec;
  container: Docker.Container;
  done: Promise<number | null>;
  ended: Promise<unknown>;
  logs: Map<number, WriteStream>;
}

export async function runUnit(ctx: RunContext<DockerSettings>, unitName: string, unit: Planned, engines: UnitEngines): Promise<UnitRun> {
  const dir = join(ctx.logDir, unitName);
  mkdirSync(dir, { recursive: true });
  const startedAt = new Date().toISOString();
  const tail: string[] = [];
  const output: string[] = [];
  const started: Started[] = [];
  const archive = Buffer.from(tarFiles(new Map([...ctx.workload].map(([p, t]) => [`${STAGE.slice(1)}/${p}`, t]))));

  const startNode = async ({ node, body }: Planned[number]): Promise<void> => {
    const d = engines.client(node.engine);
    const { name, ...rest } = body;
    const container = await d.createContainer({ name, ...rest } as Docker.ContainerCreateOptions);
    // every rank has a log, even one that prints nothing (most ranks but 0, in most tests)
    const first = node.nodeRank * ctx.test.ranksPerNode;
    const logs = new Map(Array.from({ length: ctx.test.ranksPerNode }, (_, l) => [first + l, createWriteStream(join(dir, `rank-${first + l}.log`))] as const));
    // registered before anything else can fail, so a half-started node is still stopped and removed
    const entry: Started = { node, container, done: Promise.resolve(null), ended: Promise.resolve(), logs };
    started.push(entry);
    await container.putArchive(archive, { path: "/" });
    const stream = await container.attach({ stream: true, stdout: true, stderr: true });
    entry.ended = new Promise((r) => stream.once("end", r).once("close", r).once("error", r));
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
    entry.done = container.wait().then((r: { StatusCode?: number }) => r.StatusCode ?? null, () => null);
  };

  let infra: string | undefined;
  const stop = () => Promise.all(started.map((s) => s.container.stop({ t: ctx.settings.stopGraceS }).catch(() => undefined)));
  const onAbort = () => void stop();
  ctx.signal.addEventListener("abort", onAbort, { once: true });
  const launched = await Promise.allSettled(unit.map(startNode));
  started.sort((a, b) => a.node.nodeRank - b.node.nodeRank); // started in parallel, reported in node order
  const why = launched.map((r, i) => (r.status === "rejected" ? { i, err: r.reason as unknown } : undefined)).find(Boolean);
  if (why) {
    infra = engineMessage(unit[why.i]!.node.engine, why.err);
    if (/setting rlimit/.test(infra)) infra += " (the engine may not raise memlock/stack here: set platform.docker.ulimits: false)";
    await stop();
  }
  if (ctx.signal.aborted) await stop(); // aborted while starting: the listener ran before the containers existed
  let firstBad: number | undefined; // the first to fail, not a peer that was stopped because of it
  const codes = await Promise.all(
    started.map(async (s, i) => {
      const code = await s.done;
      if (code !== 0) {
        firstBad ??= i;
        void stop();
      }
      return code;
    }),
  );
  ctx.signal.removeEventListener("abort", onAbort);
  // the attach streams end when their containers do; over ssh the last lines may trail the exit
  await Promise.race([Promise.all(started.map((s) => s.ended)), Bun.sleep(3000)]);
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
    const bad = firstBad;
    if (bad !== undefined) {
      const node = started[bad]!.node;
      const lost = codes[bad] === null ? engines.lost(node.engine) : undefined;
      if (lost) {
        status = "infra";
        message = `lost the engine of ${node.node} while its container ran: ${lost}`;
      } else {
        status = "failed";
        // the failing node's own lines: a peer stopped because of it reports its own "failure"
        const text = tail.filter((l) => l.startsWith(`[${node.node} `)).join("\n");
        const rank = /gpucheck-launch: rank (\d+)/.exec(text)?.[1];
        const reason = lastWorkloadError(text.replace(/^\[[^\]]*\] /gm, ""));
        message = `container on ${node.node} exited with ${codes[bad] ?? "no status"}${rank ? ` (rank ${rank})` : ""}${reason ? `: ${reason}` : ""}`;
      }
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
