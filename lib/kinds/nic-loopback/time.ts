// A nic-loopback test's expected wall time: every HCA's ib_write_bw runs at once
// (workload/gpucheck_workload/nic_loopback.py), each perftest's default 5000 writes of `size` (Azure
// passes no -n) at the suite's nic_loopback_gbps_min floor. perftest's --perform_warm_up and the
// servers' start are not counted: their length was never measured.
import { formatSize } from "../../core/units.ts";
import { type EstimateContext, floorOf, type KindEstimate, ms, num } from "../time-basis.ts";
import type { NicLoopbackParams } from "./params.ts";

/** perftest's default iteration count for bandwidth tests (ib_write_bw -n) */
export const PERFTEST_ITERS = 5000;

export function nicLoopbackExpected(p: NicLoopbackParams, t: EstimateContext): KindEstimate {
  const floor = floorOf(t.expect, "nic_loopback_gbps_min");
  if (floor === undefined) return { why: "no nic_loopback_gbps_min floor (min) to time the writes at" };
  return {
    ms: ms((PERFTEST_ITERS * p.size * 8) / (floor * 1e9)),
    basis: `estimated from ${PERFTEST_ITERS} writes of ${formatSize(p.size)} (perftest's default) at the ${num(floor)} Gb/s floor, every HCA at once; perftest's warm-up not counted (never measured)`,
  };
}
