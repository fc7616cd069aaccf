// A pcie test's expected wall time: its copies at the suite's floor (workload/gpucheck_workload/pcie.py):
// each GPU alone in turn, then all at once, each phase `warmup` + `iters` calls of h2d, d2h and bidir
// (bidir moves 2 × size: counted at the one-way floor, so the estimate errs long). In the shared phase
// every GPU is counted at the floor too: a host that cannot feed them all at once is what the phase finds.
import { formatSize } from "../../core/units.ts";
import { type EstimateContext, floorOf, type KindEstimate, ms, num } from "../time-basis.ts";
import type { PcieParams } from "./params.ts";

export function pcieExpected(p: PcieParams, t: EstimateContext): KindEstimate {
  const floors = [floorOf(t.expect, "pcie_h2d_gbps_min"), floorOf(t.expect, "pcie_d2h_gbps_min")].filter((f) => f !== undefined);
  if (!floors.length) return { why: "no pcie_h2d_gbps_min or pcie_d2h_gbps_min floor (min) to time the copies at" };
  const floor = Math.min(...floors);
  const turns = Math.max(1, t.gpusPerNode) + 1;
  const calls = p.iters + p.warmup;
  const seconds = (turns * calls * 4 * p.size) / (floor * 1e9);
  return {
    ms: ms(seconds),
    basis: `estimated from ${turns} turns (each GPU alone, then all) × ${calls} calls of h2d, d2h and bidir on ${formatSize(p.size)} at the ${num(floor)} GB/s floor`,
  };
}
