// A collective test's expected wall time: its sweep at the suite's busbw floor. The workload times each
// size as nccl-tests does (workload/gpucheck_workload/collective.py): `warmup` calls in a pass over every
// size first, then per placement (out-of-place, in-place) one call, `iters` timed calls and `checkIters`
// checked ones. A call of S bytes at busbw B takes S × busFactor / B (nccl_math.bus_factor: all_reduce
// 2(n−1)/n; all_gather, reduce_scatter, alltoall (n−1)/n; broadcast 1). Small sizes run at their latency,
// not the floor, but even 30 of them at ~100 µs × 87 calls are a fraction of a second: the largest sizes
// carry the time. `rails` runs the sweep once per HCA.
import { formatSize } from "../../core/units.ts";
import { type EstimateContext, floorOf, type KindEstimate, ms, num } from "../time-basis.ts";
import { type CollectiveParams, sweep } from "./params.ts";

export function busFactor(op: CollectiveParams["op"], n: number): number {
  if (op === "all_reduce") return (2 * (n - 1)) / n;
  if (op === "broadcast") return 1;
  return (n - 1) / n;
}

/** calls per size: the warm-up pass, then per placement one untimed, the timed and the checked */
export function callsPerSize(p: Pick<CollectiveParams, "warmup" | "iters" | "check" | "checkIters">): number {
  return p.warmup + 2 * (1 + p.iters + (p.check ? p.checkIters : 0));
}

export function collectiveExpected(p: CollectiveParams, t: EstimateContext): KindEstimate {
  if (p.rails === "auto") return { why: 'rails "auto": the number of HCAs is known only on the node' };
  // with rails, each sweep runs through one HCA: its own floor (rail_busbw) where the suite sets no busbw
  const metric = floorOf(t.expect, "busbw") === undefined && p.rails ? "rail_busbw" : "busbw";
  const floor = floorOf(t.expect, metric);
  if (floor === undefined) return { why: `no ${p.rails ? "busbw or rail_busbw" : "busbw"} floor (min) to time the sweep at` };
  const sizes = sweep(p);
  const calls = callsPerSize(p);
  const rails = p.rails?.length ?? 1;
  const bytes = sizes.reduce((a, s) => a + s, 0);
  const seconds = (rails * calls * bytes * busFactor(p.op, t.worldSize)) / (floor * 1e9);
  const check = p.check ? ` + ${p.checkIters} checked` : "";
  const perRail = rails > 1 ? ` × ${rails} rails` : "";
  return {
    ms: ms(seconds),
    basis: `estimated from ${sizes.length} sizes (${formatSize(p.minBytes)}…${formatSize(p.maxBytes)}) × ${calls} calls (${p.warmup} warm-up, 2 placements × (1 + ${p.iters} timed${check}))${perRail} at the ${num(floor)} GB/s ${metric} floor`,
  };
}
