// `gpucheck plan`: the fully resolved plan; nothing runs.
import type { Printer } from "./printer.ts";
import type { PlatformRegistry } from "../core/platform.ts";
import { formatWarning } from "../core/errors.ts";
import { checkBudget } from "../plan/expected-time.ts";
import { loadSuiteWarnings } from "../load/mod.ts";
import { buildPlan } from "../plan/plan.ts";
import { quickProfilePlan } from "./quick-profile.ts";
import { redactDeep, redactionOf } from "../core/redact.ts";
import { renderPlanText } from "../plan/text.ts";
import { cliOverrides, type HostFlags, type NodeFlags, nodeOptions, onlyTests } from "./cli-overrides.ts";

export interface PlanFlags extends HostFlags, NodeFlags {
  platform?: string;
  json?: boolean;
  /** `--budget 30m`: refuse a plan expected to take longer (lib/plan/expected-time.ts) */
  budget?: string;
  /** `--only a,b`: plan what `suite --only a,b` runs */
  only?: string;
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
  const only = onlyTests(flags.only);
  const opts = { platform: flags.platform, cli: cliOverrides(flags), only, ...nodeOptions(flags), platforms };
  const plan = buildPlan(suite, opts);
  // as suite does: --only chose its tests, so the quick profile is not offered in their place
  if (flags.budget !== undefined) err(`gpucheck: ${checkBudget("plan", plan, flags.budget, only ? undefined : await quickProfilePlan(plan, opts))}\n`);
  // what runs has the values; what is printed has *** (lib/core/redact.ts)
  const shown = redactDeep(plan, redactionOf(suite));
  out(flags.json ? `${JSON.stringify(shown, null, 2)}\n` : renderPlanText(shown));
  return 0;
}
