// A pcie test's block: the copy kinds' keys (lib/kinds/copy-params.ts) and its defaults.
import type { CopyParams } from "../copy-params.ts";
import { resolveCopy } from "../copy-params.ts";
import { nonNegativeInt, positiveInt, size, strictMap } from "../../core/fields.ts";
import { hcaList } from "../inventory/params.ts";
import type { ResolveContext } from "../../core/kind.ts";

/**
 * size: bytes per copy (bidir moves one buffer each way); hcas: the compute HCAs whose PCIe link is
 * judged (NCCL_IB_HCA names): storage, Ethernet and DPU ports under /sys/class/infiniband are not
 * the fabric this suite tests, and are recorded only
 */
export type PcieParams = CopyParams & { hcas?: string[] };

export const pcieBlock = () =>
  strictMap({
    size: size().optional(),
    iters: positiveInt().optional(),
    warmup: nonNegativeInt().optional(),
    hcas: hcaList().optional(),
  });

/** the copies timed, and whether each GPU copies alone or all at once (workload/gpucheck_workload/bandwidth.py) */
export const PCIE_OPS = ["h2d", "d2h", "bidir"] as const;
export const PCIE_PHASES = ["solo", "all"] as const;

// 256 MiB: at Gen5 x16's ~55 GB/s a call lasts ~5 ms, long beside a copy's start-up cost; 8 GPUs
// × (3 solo + 3 shared) × 23 calls stay within seconds
export const PCIE_DEFAULTS: PcieParams = { size: 256 * 1024 ** 2, iters: 20, warmup: 3 };
// 64 MiB keeps a 2-rank CPU run on a 2-core machine to seconds (measured: 3.5 s, most of it importing torch)
export const PCIE_CPU_SIZE = 64 * 1024 ** 2;

export const resolvePcie = (written: Partial<PcieParams> | undefined, ctx: ResolveContext): PcieParams => {
  const { hcas, ...copy } = written ?? {};
  // a device's name only: a link belongs to the PCI function, whatever its port
  return { ...resolveCopy(PCIE_DEFAULTS, PCIE_CPU_SIZE, copy, ctx), ...(hcas && { hcas: [...new Set(hcas.map((h) => h.replace(/:\d+$/, "")))] }) };
};
