// A membw test's block: the copy kinds' keys (lib/kinds/copy-params.ts), its defaults, and a size of
// at least one element.
import type { CopyParams } from "../copy-params.ts";
import { resolveCopy } from "../copy-params.ts";
import type { ResolveContext } from "../../core/kind.ts";

/** size: bytes per buffer (the copy uses two, the triad three) */
export type MembwParams = CopyParams;

/** the operations timed (workload/gpucheck_workload/bandwidth.py) */
export const MEMBW_OPS = ["copy", "triad"] as const;

// 2 GiB per buffer is 40× H100's 50 MiB L2 (H200's is the same size), so the cache cannot hold a
// buffer and HBM is what is measured; the triad's three fit easily in 80 GB.
export const MEMBW_DEFAULTS: MembwParams = { size: 2 * 1024 ** 3, iters: 20, warmup: 3 };
// 64 MiB per buffer is above a desktop CPU's L3 and keeps a 2-rank run on a 2-core machine to seconds
// (measured: 4 s for both ranks here, most of it importing torch)
export const MEMBW_CPU_SIZE = 64 * 1024 ** 2;
/** the workload's buffers are float32 (workload/gpucheck_workload/kinds/membw.py ELEMENT) */
const ELEMENT = 4;

export function resolveMembw(written: Partial<MembwParams> | undefined, ctx: ResolveContext): MembwParams {
  const p = resolveCopy(MEMBW_DEFAULTS, MEMBW_CPU_SIZE, written, ctx);
  if (p.size < ELEMENT && ctx.sound("membw.size")) ctx.report([...ctx.testAt, "membw", "size"], `"size" must be at least ${ELEMENT}B (one float32), got ${p.size}B`, "value");
  return p;
}
