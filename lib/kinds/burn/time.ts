// A burn's expected wall time: the load runs for its `duration` after a warm-up of a few iterations
// (workload/gpucheck_workload/kinds/burn.py WARMUP_ITERS), so the duration is the figure, capped by the timeout.
import type { BurnParams } from "./params.ts";
import type { KindTime } from "../time-basis.ts";

export function burnExpectedMs(p: Pick<BurnParams, "duration">): KindTime {
  return { ms: p.duration, basis: `estimated from burn.duration (${p.duration / 1000}s of load, plus a warm-up of 3 iterations)` };
}
