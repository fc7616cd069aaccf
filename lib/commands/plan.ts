// `gpucheck plan`: the fully resolved plan; nothing runs.
import { out } from "../output.ts";
import { loadSuite } from "../load.ts";
import { buildPlan } from "../plan.ts";
import { renderPlanText } from "../plan-text.ts";
import { cliOverrides, type HostFlags, type NodeFlags, nodeOptions } from "./cli-overrides.ts";

interface PlanFlags extends HostFlags, NodeFlags {
  platform?: string;
  json?: boolean;
}

export async function main(ref: string, flags: PlanFlags): Promise<number> {
  const suite = await loadSuite(ref);
  const plan = buildPlan(suite, { platform: flags.platform, cli: cliOverrides(flags), ...nodeOptions(flags) });
  out(flags.json ? `${JSON.stringify(plan, null, 2)}\n` : renderPlanText(plan));
  return 0;
}
