// An nvlink test's block: the copy kinds' keys (lib/kinds/copy-params.ts) and its defaults, with
// the one thing a link needs that a GPU does not: a second GPU.
import type { CopyParams } from "../copy-params.ts";
import { resolveCopy } from "../copy-params.ts";
import type { ResolveContext } from "../../core/kind.ts";

/** size: bytes per message */
export type NvlinkParams = CopyParams;

// 256 MiB: at NVLink4's ~370 GB/s effective (performance.md) a message lasts ~0.7 ms, long beside
// NCCL's launch cost; 8 GPUs are 56 pairs × 23 messages plus 7 shifts, a few seconds in all
export const NVLINK_DEFAULTS: NvlinkParams = { size: 256 * 1024 ** 2, iters: 20, warmup: 3 };
// 4 MiB keeps gloo over loopback short: a 2-rank run on the 2-core dev machine measured 4 s, most of
// it importing torch
export const NVLINK_CPU_SIZE = 4 * 1024 ** 2;

export function resolveNvlink(written: Partial<NvlinkParams> | undefined, ctx: ResolveContext): NvlinkParams {
  const p = resolveCopy(NVLINK_DEFAULTS, NVLINK_CPU_SIZE, written, ctx);
  if (ctx.gpusPerNode === 1 && ctx.sound("gpusPerNode")) {
    ctx.report([...ctx.testAt, "kind"], `kind "nvlink" measures links between GPUs of one node: "gpusPerNode" is 1, so there is no pair to measure`, "value", ctx.gpusAt);
  }
  return p;
}
