// A suite from its lines, written into a scratch directory, loaded and planned as `gpucheck plan`
// does; and a progress display that shows nothing, for runs whose files are what a test reads.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { CliOverrides } from "../../lib/core/platform.ts";
import type { Progress } from "../../lib/core/progress.ts";
import { loadSuite } from "../../lib/load/mod.ts";
import { buildPlan } from "../../lib/plan/plan.ts";

export async function planLines(dir: string, lines: string[], opts: { platform?: string; cli?: CliOverrides } = {}) {
  const yaml = [...lines, ""].join("\n");
  writeFileSync(join(dir, "suite.yaml"), yaml);
  const suite = await loadSuite(join(dir, "suite.yaml"));
  return { yaml, suite, plan: buildPlan(suite, { cli: opts.cli ?? {}, ...(opts.platform && { platform: opts.platform }) }) };
}

/** A progress that shows nothing; `notes` collects the platforms' notes where a test reads them. */
export function silentProgress(notes?: string[], over: Partial<Progress> = {}): Progress {
  const none = () => {};
  const note = notes ? (m: string) => void notes.push(m) : none;
  return { testStarted: none, phase: none, line: none, metric: none, ranksReporting: none, unitStarted: none, unitEnded: none, testFinished: none, note, close: none, ...over };
}
