// One unit (the whole test, or one node in per-node mode): create its containers, inject the
// workload, start them, stream their ranks' lines, wait, and turn exit codes into a verdict.
// A container that fails stops its peers: they would wait in a collective until the timeout.
import { join } from "node:path";
import { PassThrough } from "node:stream";
import type Docker from "dockerode";
import type { UnitRun } from "../../lib/core/types.ts";
import { launchFailure } from "../_shared/rank-lines.ts";
import { UnitLog } from "../_shared/unit-log.ts";
import { stopReason, unitResult, type UnitFacts } from "../_shared/unit-result.ts";
import { tarFiles } from "../_shared/tar.ts";
import type { RunContext } from "../../lib/core/platform.ts";
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
}

export async function runUnit(ctx: RunContext<DockerSettings>, unitName: string, unit: Planned, engines: UnitEngines): Promise<UnitRun> {
  const log = new UnitLog({ dir: join(ctx.logDir, unitName), unit: unitName, onLine: ctx.onLine });
  const startedAt = Date.now();
  const R = ctx.test.ranksPerNode;
  const ranksOf = (node: NodeSpec) => Array.from({ length: R }, (_, l) => node.nodeRank * R + l);
  const started: Started[] = [];
  const archive = Buffer.from(tarFiles(new Map([...ctx.workload].map(([p, t]) => [`${STAGE.slice(1)}/${p}`, t]))));

  const startNode = async ({ node, body }: Planned[number]): Promise<void> => {
    const d = engines.client(node.engine);
    const { name, ...rest } = body;
    const container = await d.createContainer({ name, ...rest } as Docker.ContainerCreateOptions);
    // every rank has a log, even one that prints nothing (most ranks but 0, in most tests)
    const ranks = ranksOf(node);
    for (const r of ranks) log.open(r);
    // registered before anything else can fail, so a half-started node is still stopped and removed
    const entry: Started = { node, container, done: Promise.resolve(null), ended: Promise.resolve() };
    started.push(entry);
    await container.putArchive(archive, { path: "/" });
    const stream = await container.attach({ stream: true, stdout: true, stderr: true });
    entry.ended = new Promise((r) => stream.once("end", r).once("close", r).once("error", r));
    // the container runs gpucheck_workload.launch, which prefixes its ranks' lines
    const sink = lineSink((line) => log.processLine(node.node, ranks, true, line, node.node));
    d.modem.demuxStream(stream, sink, sink);
    await container.start();
    entry.done = container.wait().then(
      (r: { StatusCode?: number }) => r.StatusCode ?? null,
      () => null,
    );
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
  await log.close();

  const codeOf = new Map(started.flatMap((s, i) => ranksOf(s.node).map((r) => [r, { host: s.node.node, code: codes[i] ?? null }] as const)));
  const facts: UnitFacts = {
    unit: unitName,
    hosts: unit.map((u) => u.node.node),
    startedAt,
    ranks: log.ranks(
      [...codeOf.keys()],
      (r) => codeOf.get(r)?.code ?? null,
      (r) => codeOf.get(r)?.host ?? "",
    ),
    output: log.output(),
    tail: log.tail(),
  };
  if (ctx.signal.aborted) {
    const what = `stopped containers ${started.map((s) => `${s.node.node}:${s.container.id.slice(0, 12)}`).join(", ")}`;
    return unitResult({ ...facts, stopped: { by: stopReason(ctx.signal), timeoutMs: ctx.test.timeoutMs, what } });
  }
  if (infra) return unitResult({ ...facts, infra: [infra] });
  if (firstBad === undefined) return unitResult(facts);
  const node = started[firstBad]!.node;
  const lost = codes[firstBad] === null ? engines.lost(node.engine) : undefined;
  if (lost) return unitResult({ ...facts, infra: [`lost the engine of ${node.node} while its container ran: ${lost}`] });
  // the failing node's own words: a peer stopped because of it reports its own "failure"
  const named = launchFailure(log.sourceLines(node.node));
  const reason = named
    ? log.lastError(named.rank)
    : ranksOf(node)
        .map((r) => log.lastError(r))
        .findLast(Boolean);
  const how = `exited with ${codes[firstBad] ?? "no status"}${named ? ` (rank ${named.rank})` : ""}`;
  return unitResult({ ...facts, failed: { who: "container", on: node.node, how, reason } });
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
