// One conformance suite for every platform (ARCHITECTURE.md point 4): the same behaviours checked
// against each plugin with real processes: success, a failing exit code, a timeout, cancellation
// that leaves nothing running, and hostile values that arrive literally.
import { expect, test } from "bun:test";
import { join } from "node:path";
import { workloadFiles, workloadHash } from "../../lib/core/assets.ts";
import type { Launch, Suite, TestSpec, UnitRun } from "../../lib/core/types.ts";
import type { CliOverrides, Platform, RunContext, TestToRender } from "../../lib/core/platform.ts";
import { COLLECTIVE_DEFAULTS } from "../../lib/kinds/collective/params.ts";
import { tempDir } from "../tmp.ts";

export interface ConformanceTarget {
  /** the Python that exists where ranks run (container, remote host, slurm node) */
  python: string;
  settings: unknown;
  cli?: CliOverrides;
  nodes?: number;
  ranksPerNode?: number;
  /** lists processes (or containers/jobs) still alive whose command line contains `marker` */
  leftovers(marker: string): Promise<string[]>;
  /** seconds the platform needs beyond the workload (container start, scheduling) */
  slackS?: number;
  /** ms the hang and cancel cases give the ranks to start before the timeout or Ctrl-C
   *  (default 4000 and 3000); a fake that starts ranks in well under a second takes less */
  settleMs?: number;
  /** the suite's other platform blocks the platform reads (docker's ssh engines read platform.ssh) */
  platformSettings?: Record<string, unknown>;
}

const HOSTILE = [`a b`, `it's`, `"dq"`, "$(touch /tmp/gpucheck-pwned)", "`id`", "x; rm -rf /", "line1\nline2", "$HOME", "*", "\\back"];

/** Completed, or a failure that carries the unit's own words: CI shows only the assertion's text. */
export function expectCompleted(u: UnitRun): void {
  expect(u.status, `unit ${u.unit} ${u.status}: ${u.message ?? "(no message)"}\n--- log tail ---\n${u.tail}`).toBe("completed");
}

export function fakeSuite(): Suite {
  return {
    name: "conformance",
    description: "platform conformance",
    platform: { type: "local", settings: {} },
    queueTimeoutMs: 60_000,
    tests: [],
    source: { path: "conformance.yaml", sha256: "0".repeat(64), builtin: false },
  };
}

export function scriptTest(
  name: string,
  python: string,
  code: string,
  opts: { timeoutMs?: number; env?: Record<string, string>; args?: string[]; nodes?: number; ranksPerNode?: number } = {},
): TestToRender {
  const nodes = opts.nodes ?? 1;
  const ranksPerNode = opts.ranksPerNode ?? 2;
  const launch: Launch = { python, args: ["-c", code, ...(opts.args ?? [])], env: opts.env ?? {}, files: [...workloadFiles().keys()] };
  const spec: TestSpec = {
    name,
    kind: "collective",
    nodes,
    gpusPerNode: 0,
    ranksPerNode,
    perNode: false,
    timeoutMs: opts.timeoutMs ?? 60_000,
    env: launch.env,
    python,
    // the script replaces the workload: the block is never read, but a collective always has one
    collective: { ...COLLECTIVE_DEFAULTS },
    expect: [],
  };
  return { name, kind: "collective", nodes, gpusPerNode: 0, ranksPerNode, worldSize: nodes * ranksPerNode, perNode: false, timeoutMs: spec.timeoutMs, launch, expect: [], spec };
}

/** The RunContext the executor would build for a test, for driving a platform directly. */
export function runContextFor<S>(
  t: TestToRender,
  o: { settings: S; outDir: string; signal: AbortSignal; suite?: Suite; cli?: CliOverrides; onLine?: RunContext<S>["onLine"]; note?: RunContext<S>["note"] },
): RunContext<S> {
  return {
    suite: o.suite ?? fakeSuite(),
    settings: o.settings,
    cli: o.cli ?? {},
    test: t,
    launch: t.launch,
    workloadHash: workloadHash(),
    outDir: o.outDir,
    logDir: join(o.outDir, "logs", t.name),
    workload: workloadFiles(),
    signal: o.signal,
    deadline: Date.now() + t.timeoutMs,
    onLine: o.onLine ?? (() => {}),
    note: o.note ?? (() => {}),
  };
}

export async function runScript(
  platform: Platform<unknown>,
  target: ConformanceTarget,
  t: TestToRender,
  /** cancel (Ctrl-C) this many ms after the start, or once this many ranks have printed "started" (a fixed delay on a loaded machine can come before any rank is up) */
  cancel?: number | { started: number },
): Promise<{ units: UnitRun[]; lines: string[]; elapsedMs: number }> {
  const outDir = tempDir("gpucheck-conf-");
  const ctl = new AbortController();
  const timer = setTimeout(() => ctl.abort("timeout"), t.timeoutMs);
  const timed = typeof cancel === "number" ? setTimeout(() => ctl.abort("cancelled"), cancel) : undefined;
  const lines: string[] = [];
  const onLine = (unit: string, rank: number, line: string) => {
    lines.push(`${unit}/${rank}: ${line}`);
    if (typeof cancel === "object" && !ctl.signal.aborted && lines.filter((l) => l.endsWith(": started")).length >= cancel.started) ctl.abort("cancelled");
  };
  const started = Date.now();
  const ctx = runContextFor<unknown>(t, {
    suite: target.platformSettings ? { ...fakeSuite(), platform: { type: "local", settings: target.platformSettings } } : fakeSuite(),
    settings: target.settings,
    outDir,
    signal: ctl.signal,
    cli: target.cli,
    onLine,
  });
  try {
    const units = await platform.run(ctx);
    return { units, lines, elapsedMs: Date.now() - started };
  } finally {
    clearTimeout(timer);
    clearTimeout(timed);
  }
}

export function conformance(platform: Platform<unknown>, target: () => ConformanceTarget, enabled = true): void {
  const slack = () => (target().slackS ?? 5) * 1000;
  const opts = (ms: number) => ({ timeout: ms + 60_000 });
  const t = enabled ? test : test.skip;

  t(
    `${platform.name}: every rank runs with its rank environment and exits 0`,
    async () => {
      const tg = target();
      const code =
        "import os; print('RANK', os.environ['RANK'], os.environ['WORLD_SIZE'], os.environ['LOCAL_RANK'], os.environ['MASTER_ADDR'], int(os.environ['MASTER_PORT']) > 0)";
      const { units, lines } = await runScript(platform, tg, scriptTest("ok", tg.python, code, { nodes: tg.nodes, ranksPerNode: tg.ranksPerNode }));
      expect(units.map((u) => u.status)).toEqual(["completed"]);
      const world = (tg.nodes ?? 1) * (tg.ranksPerNode ?? 2);
      expect(units[0]!.ranks.map((r) => r.rank).sort()).toEqual([...Array(world).keys()]);
      for (let r = 0; r < world; r++) expect(lines.some((l) => l.includes(`RANK ${r} ${world} ${r % (tg.ranksPerNode ?? 2)}`))).toBe(true);
      expect(units[0]!.output).toContain("RANK 0");
    },
    opts(60_000),
  );

  t(
    `${platform.name}: a rank's non-zero exit is a failed unit naming the rank and the workload's reason`,
    async () => {
      const tg = target();
      const code = "import os,sys\nif os.environ['RANK']=='1':\n  sys.stderr.write('gpucheck-workload: error: missing data set: train-images-idx3-ubyte in /nope\\n'); sys.exit(2)";
      const { units } = await runScript(platform, tg, scriptTest("fail", tg.python, code, { nodes: tg.nodes, ranksPerNode: tg.ranksPerNode }));
      expect(units[0]!.status).toBe("failed");
      expect(units[0]!.message).toContain("rank 1");
      expect(units[0]!.message).toContain("missing data set: train-images-idx3-ubyte in /nope");
    },
    opts(60_000),
  );

  t(
    `${platform.name}: a hung rank is killed at the timeout and nothing is left running`,
    async () => {
      const tg = target();
      const marker = `gpucheck-hang-${process.pid}-${Date.now()}`;
      const code = `import time, sys\nprint('started', flush=True)\ntime.sleep(3600)  # ${marker}`;
      const timeoutMs = (tg.settleMs ?? 4000) + slack();
      const { units, lines, elapsedMs } = await runScript(platform, tg, scriptTest("hang", tg.python, code, { timeoutMs, args: [marker] }));
      expect(units[0]!.status).toBe("timeout");
      // a rank that never started would leave nothing to find below
      expect(lines.filter((l) => l.endsWith(": started"))).toHaveLength(2);
      expect(elapsedMs).toBeLessThan(timeoutMs + slack() + 10_000);
      expect(await tg.leftovers(marker)).toEqual([]);
    },
    opts(30_000),
  );

  t(
    `${platform.name}: cancelling (Ctrl-C) kills every rank and reports cancelled`,
    async () => {
      const tg = target();
      const marker = `gpucheck-cancel-${process.pid}-${Date.now()}`;
      const code = `import time\nprint('started', flush=True)\ntime.sleep(3600)  # ${marker}`;
      const { units, lines } = await runScript(platform, tg, scriptTest("cancel", tg.python, code, { timeoutMs: 120_000, args: [marker] }), { started: 2 });
      expect(units[0]!.status).toBe("cancelled");
      expect(lines.filter((l) => l.endsWith(": started"))).toHaveLength(2);
      expect(await tg.leftovers(marker)).toEqual([]);
    },
    opts(150_000),
  );

  t(
    `${platform.name}: cancelling (Ctrl-C) while the ranks are being launched ends the run and leaves nothing running`,
    async () => {
      const tg = target();
      // before anything started, and at two points inside the launch (which a rank may outrun)
      for (const ms of [0, 150, 500]) {
        const marker = `gpucheck-cancel-early-${process.pid}-${Date.now()}`;
        const code = `import time\nprint('started', flush=True)\ntime.sleep(3600)  # ${marker}`;
        const { units, elapsedMs } = await runScript(platform, tg, scriptTest("cancel-early", tg.python, code, { timeoutMs: 120_000, args: [marker] }), ms);
        expect([ms, units[0]!.status]).toEqual([ms, "cancelled"]);
        // ended by the cancel, not by the test's 120 s timeout
        expect(elapsedMs).toBeLessThan(60_000);
        expect(await tg.leftovers(marker)).toEqual([]);
      }
    },
    opts(200_000),
  );

  t(
    `${platform.name}: hostile env values and arguments arrive literally`,
    async () => {
      const tg = target();
      const env = Object.fromEntries(HOSTILE.map((v, i) => [`GPUCHECK_HOSTILE_${i}`, v]));
      const code =
        "import os, sys, json\nif os.environ['RANK']=='0': print('DUMP', json.dumps({'argv': sys.argv[1:], 'env': {k: v for k, v in os.environ.items() if k.startswith('GPUCHECK_HOSTILE_')}}), flush=True)";
      const { units } = await runScript(platform, tg, scriptTest("hostile", tg.python, code, { env, args: HOSTILE, nodes: tg.nodes, ranksPerNode: tg.ranksPerNode }));
      expectCompleted(units[0]!);
      const dump = units[0]!.output.split("\n").find((l) => l.includes("DUMP {"))!;
      const parsed = JSON.parse(dump.slice(dump.indexOf("DUMP ") + 5));
      expect(parsed.argv).toEqual(HOSTILE);
      expect(parsed.env).toEqual(env);
    },
    opts(60_000),
  );
}
