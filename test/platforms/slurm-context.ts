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
