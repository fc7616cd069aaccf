// A dcgm test's block: which `dcgmi diag -r` level to run, and how long dcgmi may take (from the test's timeout).
import * as z from "../../core/schema.ts";
import { strictMap } from "../../core/fields.ts";
import type { ResolveContext } from "../../core/kind.ts";

export interface DcgmParams {
  /** dcgmi diag -r: 1 quick (software), 2 medium (+ memory, pcie …), 3 long, 4 extended */
  level: 1 | 2 | 3 | 4;
  /** seconds dcgmi may run before the workload stops it and reports the timeout */
  timeoutS: number;
}

export const DCGM_LEVELS = [1, 2, 3, 4] as const;
export const DCGM_DEFAULT_LEVEL = 2;

export const dcgmBlock = () =>
  strictMap({
    level: z
      .number({ error: (iss) => (iss.input === undefined ? undefined : "must be a DCGM diagnostic level: 1, 2, 3 or 4") })
      .refine((v) => (DCGM_LEVELS as readonly number[]).includes(v), { error: "must be a DCGM diagnostic level: 1, 2, 3 or 4" })
      .optional(),
  });

/**
 * dcgmi gets the test's timeout less a margin, so the workload outlives it and reports "timed out"
 * with what dcgmi printed, instead of the unit being killed with nothing: 60 s, or a tenth of a short timeout.
 */
export function dcgmTimeoutS(timeoutMs: number): number {
  return Math.max(1, Math.floor((timeoutMs - Math.min(60_000, timeoutMs / 10)) / 1000));
}

export function resolveDcgm(written: { level?: number } | undefined, ctx: ResolveContext): DcgmParams {
  return { level: (written?.level ?? DCGM_DEFAULT_LEVEL) as DcgmParams["level"], timeoutS: dcgmTimeoutS(ctx.timeoutMs) };
}
