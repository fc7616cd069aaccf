// `gpucheck plan`: the fully resolved plan; nothing runs (lib/pipeline/plan.ts). With --health, the
// Kubernetes DaemonSet that runs `gpucheck health` on every GPU node (lib/pipeline/health.ts).
import { type PlanFlags, showPlan } from "../../lib/pipeline/plan.ts";
import { PLATFORMS } from "../platforms.ts";
import { printer } from "./print.ts";
import { SuiteError } from "../../lib/core/errors.ts";

export async function main(ref: string, flags: PlanFlags & { health?: boolean; image?: string; baseline?: string }): Promise<number> {
  if (flags.health) {
    const { healthPlan } = await import("../../lib/pipeline/health.ts");
    return healthPlan(ref, flags, printer());
  }
  if (flags.baseline !== undefined)
    throw new SuiteError("gpucheck: plan: --baseline goes with --health (the DaemonSet's acceptance results directory on each node); a suite's plan takes none");
  return showPlan({ ref, flags, platforms: PLATFORMS, print: printer() });
}
