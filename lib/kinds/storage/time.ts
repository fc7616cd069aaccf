// A storage test's expected wall time (workload/gpucheck_workload/storage.py): on each path (local,
// shared) fio's three jobs one after another: a sequential write and read of `size`, each at the
// suite's floor for that path, and the random-read job, which runs for `runtime`; then the checkpoint
// burst on the shared path: every rank writes `checkpointSize` at once, then reads it back, at the
// floor of the burst's total rate. A sequential job without a floor has no length to estimate.
import { formatSize } from "../../core/units.ts";
import { type EstimateContext, floorOf, type KindEstimate, ms } from "../time-basis.ts";
import type { StorageParams } from "./params.ts";

export function storageExpected(p: StorageParams, t: EstimateContext): KindEstimate {
  const roles = (["local", "shared"] as const).filter((r) => p[r]);
  let seconds = 0;
  const parts: string[] = [];
  for (const role of roles) {
    for (const dir of ["write", "read"] as const) {
      const metric = `storage_${role}_${dir}_gbyte_s_min`;
      const floor = floorOf(t.expect, metric);
      if (floor === undefined) return { why: `no ${metric} floor (min) to time the sequential ${dir} of ${formatSize(p.size)} at` };
      seconds += p.size / (floor * 1e9);
    }
    seconds += p.runtime / 1000;
    parts.push(role);
  }
  let burst = "";
  if (p.shared && p.checkpoint) {
    for (const phase of ["write", "read"] as const) {
      const metric = `storage_checkpoint_${phase}_total_gbyte_s`;
      const floor = floorOf(t.expect, metric);
      if (floor === undefined) return { why: `no ${metric} floor (min) to time the checkpoint ${phase} at` };
      seconds += (p.checkpointSize * t.worldSize) / (floor * 1e9);
    }
    burst = `, then ${t.worldSize} ranks' ${formatSize(p.checkpointSize)} checkpoint written and read at their total floors`;
  }
  return {
    ms: ms(seconds),
    basis: `estimated from fio's jobs on ${parts.join(" and ")}: ${formatSize(p.size)} written and read at the floors, ${p.runtime / 1000}s of random reads${burst}`,
  };
}
