// A membw test's expected wall time: its copies at the suite's floors, every GPU at once
// (workload/gpucheck_workload/membw.py): `warmup` + `iters` calls of the copy (2 × size bytes: each
// element read and written) and of the triad (3 × size), each at its own floor.
import { formatSize } from "../../core/units.ts";
import { type EstimateContext, floorOf, type KindEstimate, ms, num } from "../time-basis.ts";
import type { MembwParams } from "./params.ts";

export function membwExpected(p: MembwParams, t: EstimateContext): KindEstimate {
  const copy = floorOf(t.expect, "membw_copy_gbps_min");
  const triad = floorOf(t.expect, "membw_triad_gbps_min") ?? copy;
  if (copy === undefined || triad === undefined) return { why: "no membw_copy_gbps_min floor (min) to time the copies at" };
  const calls = p.iters + p.warmup;
  const seconds = (calls * p.size * (2 / copy + 3 / triad)) / 1e9;
  const at = copy === triad ? `the ${num(copy)} GB/s floor` : `the ${num(copy)} and ${num(triad)} GB/s floors`;
  return { ms: ms(seconds), basis: `estimated from ${calls} copies and ${calls} triads of ${formatSize(p.size)} (2 and 3 × size moved) at ${at}, every GPU at once` };
}
