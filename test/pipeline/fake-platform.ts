// A platform that runs nothing: for each test it writes the rank logs a scripted behaviour calls for
// and reports the UnitRun a real platform would, so the whole pipeline (preflight, execute, assess,
// the files on disk) runs in-process, without daemons or torch.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import * as z from "../../lib/core/schema.ts";
import type { UnitRun } from "../../lib/core/types.ts";
import type { Platform, RunContext } from "../../lib/core/platform.ts";

export const NODE = "fake-node";
export const PYTHON = "/usr/bin/python3";

/** A real nccl-tests log (see test/fixtures/nccl/README.md): rank 0's output of a passing test. */
export const NCCL_LOG = readFileSync(resolve(import.meta.dir, "../fixtures/nccl/gh200-2node-allreduce-complete-v2.18.3.txt"), "utf8");

/**
 * ok: both ranks exit 0, rank 0 printed NCCL_LOG; fail: rank 1 exits 1 with the workload's error line;
 * silent: both exit 0 and print nothing; hang: waits for the run's signal (timeout or Ctrl-C).
 */
export type Behaviour = "ok" | "fail" | "silent" | "hang";

/** The preflight's answer for a node with python, torch and no GPU: what a gloo collective needs. */
export const PREFLIGHT_ANSWER = {
  hostname: NODE,
  interpreters: {
    [PYTHON]: { executable: PYTHON, version: "3.11.2", torch: "1.13.1", torch_cuda: null, cuda_available: false, cuda_device_count: 0, cuda_devices: [], nccl_available: false },
  },
  tools: {},
};

export function fakePlatform(script: Record<string, Behaviour>, hooks: { waiting?: (test: string) => void } = {}): Platform<unknown> {
  return {
    name: "fake",
    summary: "writes scripted rank logs (tests only)",
    settings: z.object({}).strict(),
    flags: [],
    render: () => ({ slots: {} }),
    run: (ctx) => run(ctx, script, hooks),
  };
}

async function run(ctx: RunContext<unknown>, script: Record<string, Behaviour>, hooks: { waiting?: (test: string) => void }): Promise<UnitRun[]> {
  const startedAt = new Date().toISOString();
  const dir = join(ctx.logDir, NODE);
  mkdirSync(dir, { recursive: true });
  const log = (rank: number, text: string) => {
    const path = join(dir, `rank-${rank}.log`);
    writeFileSync(path, text);
    for (const line of text.split("\n").filter(Boolean)) ctx.onLine(NODE, rank, line);
    return path;
  };
  const base = { unit: ctx.test.perNode ? NODE : "all", hosts: [NODE], startedAt };
  if (ctx.test.name === "preflight") {
    const text = `GPUCHECK_RESULT ${JSON.stringify(PREFLIGHT_ANSWER)}\n`;
    const path = log(0, text);
    return [{ ...base, status: "completed", endedAt: new Date().toISOString(), ranks: [{ rank: 0, host: NODE, path, exitCode: 0 }], output: text, tail: "" }];
  }
  const behaviour = script[ctx.test.name];
  if (!behaviour) throw new Error(`fake platform: no behaviour for test "${ctx.test.name}"`);
  if (behaviour === "hang") {
    const paths = [log(0, "warming up\n"), log(1, "warming up\n")];
    hooks.waiting?.(ctx.test.name);
    if (!ctx.signal.aborted) await new Promise((r) => ctx.signal.addEventListener("abort", r, { once: true }));
    const status = ctx.signal.reason === "timeout" ? "timeout" : "cancelled";
    const what = status === "timeout" ? `timed out after ${Math.round(ctx.test.timeoutMs / 1000)}s` : "cancelled";
    return [
      {
        ...base,
        status,
        message: `${what}: killed rank 0 (pid 101), rank 1 (pid 102)`,
        endedAt: new Date().toISOString(),
        ranks: paths.map((path, rank) => ({ rank, host: NODE, path, exitCode: null })),
        output: "warming up\n",
        tail: "[rank 0] warming up\n[rank 1] warming up",
      },
    ];
  }
  const rank0 = behaviour === "ok" ? NCCL_LOG : "";
  const rank1 = behaviour === "fail" ? "gpucheck-workload: error: all_reduce: connection reset by peer\n" : "";
  const paths = [log(0, rank0), log(1, rank1)];
  const exits = [0, behaviour === "fail" ? 1 : 0];
  return [
    {
      ...base,
      status: behaviour === "fail" ? "failed" : "completed",
      ...(behaviour === "fail" ? { message: `rank 1 on ${NODE} failed with exit code 1: all_reduce: connection reset by peer` } : {}),
      endedAt: new Date().toISOString(),
      ranks: paths.map((path, rank) => ({ rank, host: NODE, path, exitCode: exits[rank]! })),
      output: rank0,
      tail: rank1 ? `[rank 1] ${rank1.trim()}` : "",
    },
  ];
}
