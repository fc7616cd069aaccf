// `gpucheck plan`: the fully resolved plan; nothing runs.
import type { Printer } from "./printer.ts";
import type { PlatformRegistry } from "../core/platform.ts";
import { formatWarning, SuiteError } from "../core/errors.ts";
import { parseDuration } from "../core/units.ts";
import { budgetFits, budgetRefusal, expectedPlanTime } from "../plan/expected-time.ts";
import { loadSuiteWarnings } from "../load/mod.ts";
import { buildPlan } from "../plan/plan.ts";
import { redactDeep, redactionOf } from "../core/redact.ts";
import { renderPlanText } from "../plan/text.ts";
import { cliOverrides, type HostFlags, type NodeFlags, nodeOptions } from "./cli-overrides.ts";

export interface PlanFlags extends HostFlags, NodeFlags {
  platform?: string;
  json?: boolean;
  /** `--budget 30m`: refuse a plan expected to take longer (lib/plan/expected-time.ts) */
  budget?: string;
}

export interface PlanRequest {
  ref: string;
  flags: PlanFlags;
  /** the platforms a suite may name (cli/platforms.ts) */
  platforms: PlatformRegistry;
  print: Printer;
}

export async function showPlan({ ref, flags, platforms, print }: PlanRequest): Promise<number> {
  const { out, err } = print;
  const { suite, warnings } = await loadSuiteWarnings(ref, { platforms });
  // on stderr, so `plan --json` stays one JSON document
  for (const w of warnings)
    err(`${formatWarning(w)}
`);
  const plan = buildPlan(suite, { platform: flags.platform, cli: cliOverrides(flags), ...nodeOptions(flags), platforms });
  if (flags.budget !== undefined) {
    const budget = parseDuration(flags.budget);
    if (!budget.ok || budget.value <= 0) throw new SuiteError(`gpucheck: plan: --budget ${JSON.stringify(flags.budget)}: ${budget.ok ? "must be above 0" : budget.reason}`);
    const expected = expectedPlanTime(plan);
    const refusal = budgetRefusal(plan.suite.name, expected, budget.value);
    if (refusal) throw new SuiteError(refusal);
    err(`${budgetFits(expected, budget.value)}\n`);
  }
  // what runs has the values; what is printed has *** (lib/core/redact.ts)
  const shown = redactDeep(plan, redactionOf(suite));
  out(flags.json ? `${JSON.stringify(shown, null, 2)}\n` : renderPlanText(shown));
  return 0;
}
