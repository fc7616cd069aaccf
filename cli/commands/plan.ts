// `gpucheck plan`: the fully resolved plan; nothing runs (lib/pipeline/plan.ts).
import { type PlanFlags, showPlan } from "../../lib/pipeline/plan.ts";
import { PLATFORMS } from "../platforms.ts";
import { printer } from "./print.ts";

export async function main(ref: string, flags: PlanFlags): Promise<number> {
  return showPlan({ ref, flags, platforms: PLATFORMS, print: printer() });
}
