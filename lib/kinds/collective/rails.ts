// `rails:` of a collective block: the HCAs to run the sweep through one at a time
// (workload/gpucheck_workload/collective_rails.py), or "auto" for every InfiniBand port of node 0.
import * as z from "../../core/schema.ts";
import { closest } from "../../core/did-you-mean.ts";
import { show } from "../../core/units.ts";
import { hcaList } from "../inventory/params.ts";

export type Rails = string[] | "auto";

/** `[mlx5_0, mlx5_3]`, "mlx5_0,mlx5_3" or "auto"; each HCA at most once. */
export function railList() {
  return z.unknown().transform((v, ctx): Rails => {
    if (v === "auto") return "auto";
    if (typeof v === "string" && !v.includes(",") && closest(v, ["auto"]) === "auto") {
      ctx.issues.push({ code: "custom", input: v, message: `invalid rails ${show(v)}: did you mean "auto"?` });
      return z.NEVER;
    }
    const parsed = hcaList().safeParse(v);
    if (!parsed.success) {
      for (const issue of parsed.error.issues) {
        const message = issue.message.startsWith("must be a list of HCA names") ? `${issue.message.replace(/, got /, ', or "auto", got ')}` : issue.message;
        ctx.issues.push({ code: "custom", input: v, message, ...(issue.path.length && { path: issue.path as PropertyKey[] }) });
      }
      return z.NEVER;
    }
    const seen = new Set<string>();
    for (const [i, hca] of parsed.data.entries()) {
      if (seen.has(hca)) {
        ctx.issues.push({ code: "custom", input: hca, message: `rail ${show(hca)} is listed twice: each HCA is one rail`, ...(Array.isArray(v) && { path: [i] }) });
        return z.NEVER;
      }
      seen.add(hca);
    }
    return parsed.data;
  });
}

/** The workload's --rails value. */
export const railsArg = (r: Rails): string => (r === "auto" ? "auto" : r.join(","));
