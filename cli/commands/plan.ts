// `gpucheck plan`: the fully resolved plan; nothing runs.
import { err, out } from "../output.ts";
import { formatWarning } from "../../lib/core/errors.ts";
import { loadSuiteWarnings } from "../../lib/load/mod.ts";
import { buildPlan } from "../../lib/plan/plan.ts";
import { redactDeep, redactionOf } from "../../lib/core/redact.ts";
import { renderPlanText } from "../../lib/plan/text.ts";
import { cliOverrides, type HostFlags, type NodeFlags, nodeOptions } from "./cli-overrides.ts";

interface PlanFlags extends HostFlags, NodeFlags {
  platform?: string;
  json?: boolean;
}

export async function main(ref: string, flags: PlanFlags): Promise<number> {
  const { suite, warnings } = await loadSuiteWarnings(ref);
  // on stderr, so `plan --json` stays one JSON document
  for (const w of warnings)
    err(`${formatWarning(w)}
`);
  const plan = buildPlan(suite, { platform: flags.platform, cli: cliOverrides(flags), ...nodeOptions(flags) });
  // what runs has the values; what is printed has *** (lib/core/redact.ts)
  const shown = redactDeep(plan, redactionOf(suite));
  out(flags.json ? `${JSON.stringify(shown, null, 2)}\n` : renderPlanText(shown));
  return 0;
}
