// The block of the kinds that time copies of one buffer size (membw, pcie): size, iters, warmup,
// the same keys, defaults by device, and the same workload flags.
import { nonNegativeInt, positiveInt, size, strictMap } from "../core/fields.ts";
import { given } from "./given.ts";
import type { KeyDoc, ResolveContext } from "../core/kind.ts";

export interface CopyParams {
  /** bytes per buffer */
  size: number;
  /** timed calls per operation */
  iters: number;
  /** untimed calls per operation first */
  warmup: number;
}

export const copyBlock = () =>
  strictMap({
    size: size().optional(),
    iters: positiveInt().optional(),
    warmup: nonNegativeInt().optional(),
  });

/** the defaults, with `cpuSize` when the test runs on CPUs (gpusPerNode 0), overridden by what was written */
export function resolveCopy(defaults: CopyParams, cpuSize: number, written: Partial<CopyParams> | undefined, ctx: ResolveContext): CopyParams {
  return { ...defaults, ...(ctx.gpusPerNode === 0 && { size: cpuSize }), ...given(written ?? {}) };
}

export function copyKeys(sizeDefault: string, sizeDoc: string, calls: string): KeyDoc[] {
  return [
    { key: "size", default: sizeDefault, doc: sizeDoc },
    { key: "iters", default: "20", doc: `timed ${calls}, each timed alone (CUDA events on a GPU)` },
    { key: "warmup", default: "3", doc: `untimed ${calls} first` },
  ];
}

/** the workload command: `membw --size … --iters … --warmup …` */
export const copyArgs = (command: string, p: CopyParams | undefined): string[] =>
  p ? [command, "--size", String(p.size), "--iters", String(p.iters), "--warmup", String(p.warmup)] : [command];
