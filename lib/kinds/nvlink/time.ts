// An nvlink test's expected wall time: its messages at the suite's floor. Two timed phases on each node
// (workload/gpucheck_workload/nvlink.py, nvlink_ce.py), each every ordered pair alone, then every pair at
// once (n − 1 shifts in the send/recv phase; all links together in the copy-engine one, counted as n − 1
// rounds too), `warmup` + `iters` messages of `size` each. The floor is nvlink_pair_gbps_min where the
// suite sets one, else the copy-engine floor nvlink_nvbw_read_gbps_min applied to both phases.
// nvbandwidth's own four testcases are not counted: their length was never measured.
import { formatSize } from "../../core/units.ts";
import { type EstimateContext, floorOf, type KindEstimate, ms, num } from "../time-basis.ts";
import type { NvlinkParams } from "./params.ts";

export function nvlinkExpected(p: NvlinkParams, t: EstimateContext): KindEstimate {
  const pair = floorOf(t.expect, "nvlink_pair_gbps_min");
  const floor = pair ?? floorOf(t.expect, "nvlink_nvbw_read_gbps_min");
  if (floor === undefined) return { why: "no nvlink_pair_gbps_min or nvlink_nvbw_read_gbps_min floor (min) to time the messages at" };
  const n = Math.max(2, t.gpusPerNode);
  const rounds = n * (n - 1) + (n - 1);
  const calls = p.iters + p.warmup;
  const seconds = (2 * rounds * calls * p.size) / (floor * 1e9);
  const which = pair !== undefined ? "nvlink_pair_gbps_min" : "copy-engine";
  return {
    ms: ms(seconds),
    basis: `estimated from 2 phases × ${rounds} rounds (${n * (n - 1)} pairs alone, ${n - 1} all at once) × ${calls} messages of ${formatSize(p.size)} at the ${num(floor)} GB/s ${which} floor; nvbandwidth's own run not counted (never measured)`,
  };
}
