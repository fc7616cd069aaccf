// The quick profile of a built-in suite (`<name>-quick`, e.g. h100-8x-quick), planned as the suite was,
// so that a --budget the full suite cannot fit can say whether its quick profile does.
import { builtinSuites } from "../core/assets.ts";
import type { Plan } from "../core/types.ts";
import { loadSuite } from "../load/mod.ts";
import { buildPlan, type PlanOptions } from "../plan/plan.ts";

export async function quickProfilePlan(plan: Plan, opts: PlanOptions): Promise<Plan | undefined> {
  const name = `${plan.suite.name}-quick`;
  // a suite file that takes a built-in's name is not that built-in, and has no quick profile of ours
  if (plan.suite.path !== `builtin:${plan.suite.name}.yaml` || !builtinSuites().has(name)) return undefined;
  const suite = await loadSuite(`builtin:${name}.yaml`, { platforms: opts.platforms });
  return buildPlan(suite, { ...opts, only: undefined });
}
