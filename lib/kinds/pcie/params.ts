// A pcie test's block: the copy kinds' keys (lib/kinds/copy-params.ts) and its defaults.
import type { CopyParams } from "../copy-params.ts";
import { resolveCopy } from "../copy-params.ts";
import type { ResolveContext } from "../../core/kind.ts";

/** size: bytes per copy (bidir moves one buffer each way) */
export type PcieParams = CopyParams;

/** the copies timed, and whether each GPU copies alone or all at once (workload/gpucheck_workload/bandwidth.py) */
export const PCIE_OPS = ["h2d", "d2h", "bidir"] as const;
export const PCIE_PHASES = ["solo", "all"] as const;

// 256 MiB: at Gen5 x16's ~55 GB/s a call lasts ~5 ms, long beside a copy's start-up cost; 8 GPUs
// × (3 solo + 3 shared) × 23 calls stay within seconds
export const PCIE_DEFAULTS: PcieParams = { size: 256 * 1024 ** 2, iters: 20, warmup: 3 };
// 64 MiB keeps a 2-rank CPU run on a 2-core machine to seconds (measured: 3.5 s, most of it importing torch)
export const PCIE_CPU_SIZE = 64 * 1024 ** 2;

export const resolvePcie = (written: Partial<PcieParams> | undefined, ctx: ResolveContext): PcieParams => resolveCopy(PCIE_DEFAULTS, PCIE_CPU_SIZE, written, ctx);
