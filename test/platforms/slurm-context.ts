// A RunContext for calling the slurm platform's runSlurm directly (with a counting scheduler door),
// shared by the integration tests and bench/slurm-pernode.ts.
import { rmSync } from "node:fs";
import type { Suite } from "../../lib/core/types.ts";
import { slurm } from "../../plugins/slurm.ts";
import type { SlurmSettings } from "../../plugins/slurm/settings.ts";
import type { CliOverrides, RunContext, TestToRender } from "../../lib/core/platform.ts";
import { fakeSuite, runContextFor } from "./conformance.ts";
import { tempDir } from "../tmp.ts";

const made: string[] = [];

/** Removes every results directory slurmContext made (call it after the tests that read them). */
export function removeSlurmContexts(): void {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
}

export function slurmContext(
  t: TestToRender,
  opts: { settings?: Record<string, unknown>; suite?: Partial<Suite>; cli?: CliOverrides } = {},
): RunContext<SlurmSettings> & { lines: string[] } {
  const outDir = tempDir("gpucheck-slurm-");
  made.push(outDir);
  const lines: string[] = [];
  const ctx = runContextFor(t, {
    suite: { ...fakeSuite(), ...opts.suite },
    settings: slurm.settings.parse({ pollMaxS: 1, ...opts.settings }),
    cli: opts.cli,
    outDir,
    signal: AbortSignal.timeout(t.timeoutMs),
    onLine: (unit, rank, line) => lines.push(`${unit}/${rank}: ${line}`),
  });
  return { ...ctx, lines };
}

/**
 * Python for every rank of a round of `ranks` ranks: it waits (up to `waitS`) until all have started,
 * each leaving a file in `dir` (a directory every node sees), then prints "ME <node> <rank>
 * <world> <master addr> <master port> <ranks seen>". Steps run one after another never all meet.
 */
export function meetingCode(dir: string, ranks: number, waitS: number): string {
  const d = JSON.stringify(dir);
  return [
    "import os, time",
    "e = os.environ",
    `open(os.path.join(${d}, e['GPUCHECK_NODE'] + '-' + e['LOCAL_RANK']), 'w').close()`,
    `while len(os.listdir(${d})) < ${ranks} and time.time() < ${Date.now() / 1000 + waitS}: time.sleep(0.05)`,
    `print('ME', e['GPUCHECK_NODE'], e['RANK'], e['WORLD_SIZE'], e['MASTER_ADDR'], e['MASTER_PORT'], len(os.listdir(${d})), flush=True)`,
  ].join("\n");
}
