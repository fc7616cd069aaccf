// A platform with named hosts that runs nothing: each unit (a pair, a half, the whole set) ends as a
// scripted function of its hosts says, with the real nccl-tests log as rank 0's output when it
// passes. For the isolating patterns' pipeline (which rounds run, what is judged, what is written);
// that real faults are found on real hosts is the integration tier's (test/integration/isolate/).
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import * as z from "../../lib/core/schema.ts";
import type { UnitRun } from "../../lib/core/types.ts";
import type { Platform, RunContext } from "../../lib/core/platform.ts";
import { NCCL_LOG, PREFLIGHT_ANSWER } from "./fake-platform.ts";

/** lost: the named host stops answering, as ssh reports a host it cannot reach */
export type UnitEnd = "ok" | "fail" | "hang" | { lost: string };

export interface HostsScript {
  hosts: string[];
  /** how a unit over these hosts ends */
  end: (hosts: string[]) => UnitEnd;
  /** rank 0's output of a unit that ends "ok" (default: the real nccl-tests log NCCL_LOG) */
  log?: (hosts: string[]) => string;
  /** the units come back last first, as Slurm returns the groups it could not submit after the others */
  reversed?: boolean;
}

export function fakeHostsPlatform(script: HostsScript, launched: string[][] = []): Platform<unknown> {
  return {
    name: "fake-hosts",
    summary: "named hosts whose units end as scripted (tests only)",
    settings: z.object({}).strict(),
    flags: [],
    anyUnits: true,
    hosts: () => ({ names: script.hosts, separate: true }),
    render: (ctx) => ({ slots: {}, text: (ctx.test.units ?? []).map((u) => `${u.name}: ${u.nodes.join(",")}`).join("\n") }),
    run: async (ctx) => {
      const units = ctx.test.units ?? [];
      if (ctx.test.name === "preflight") return Promise.all(units.map((u) => preflightUnit(ctx, u.name)));
      launched.push(...units.map((u) => u.nodes));
      const runs = await Promise.all(units.map((u) => runUnit(ctx, u.name, u.nodes, script.end(u.nodes), script.log?.(u.nodes) ?? NCCL_LOG)));
      return script.reversed ? runs.reverse() : runs;
    },
  };
}

async function runUnit(ctx: RunContext<unknown>, unit: string, hosts: string[], end: UnitEnd, log: string): Promise<UnitRun> {
  const startedAt = new Date().toISOString();
  const dir = join(ctx.logDir, unit);
  mkdirSync(dir, { recursive: true });
  const ranks = hosts.map((host, rank) => {
    const path = join(dir, `rank-${rank}.log`);
    writeFileSync(path, rank === 0 && end === "ok" ? log : "");
    return { rank, host, path, exitCode: end === "hang" || typeof end === "object" ? null : end === "fail" && rank === 1 ? 1 : 0 };
  });
  if (end === "hang") {
    if (!ctx.signal.aborted) await new Promise((r) => ctx.signal.addEventListener("abort", r, { once: true }));
    const status = ctx.signal.reason === "timeout" ? "timeout" : "cancelled";
    return {
      unit,
      hosts,
      status,
      message: `${status === "timeout" ? "timed out" : "cancelled"}: killed ${hosts.length} ranks`,
      startedAt,
      endedAt: new Date().toISOString(),
      ranks,
      output: "",
      tail: "",
    };
  }
  if (typeof end === "object") {
    const message = `host ${end.lost}: unreachable: Connection to ${end.lost} port 22 timed out`;
    return { unit, hosts, status: "infra", message, startedAt, endedAt: new Date().toISOString(), ranks, output: "", tail: "", lost: [end.lost] };
  }
  if (end === "fail") {
    const message = `rank 1 on ${hosts[1]} failed with exit code 1: all_reduce: connection reset by peer`;
    return { unit, hosts, status: "failed", message, startedAt, endedAt: new Date().toISOString(), ranks, output: "", tail: "" };
  }
  return { unit, hosts, status: "completed", startedAt, endedAt: new Date().toISOString(), ranks, output: log, tail: "" };
}

/** The preflight's answer for a node with python and torch and no GPU, as fake-platform.ts gives it. */
function preflightUnit(ctx: RunContext<unknown>, host: string): UnitRun {
  const startedAt = new Date().toISOString();
  const path = join(ctx.logDir, `${host}.log`);
  mkdirSync(ctx.logDir, { recursive: true });
  const text = `GPUCHECK_RESULT ${JSON.stringify({ ...PREFLIGHT_ANSWER, hostname: host })}\n`;
  writeFileSync(path, text);
  return { unit: host, hosts: [host], status: "completed", startedAt, endedAt: startedAt, ranks: [{ rank: 0, host, path, exitCode: 0 }], output: text, tail: "" };
}
