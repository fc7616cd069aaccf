// A storage test's block: the node's local path (NVMe scratch) and the shared filesystem path, each
// rank's fio file size, the random-read job's length, the checkpoint burst's size, and whether direct
// I/O is tried. At least one path; a checkpoint needs the shared path it is written to.
import { bool, duration, nonEmptyText, size, strictMap } from "../../core/fields.ts";
import type { ResolveContext } from "../../core/kind.ts";
import { given } from "../given.ts";

export interface StorageParams {
  /** the node's local path; `{rank}` and `{host}` are replaced on the node */
  local?: string;
  /** the shared filesystem path every node sees */
  shared?: string;
  /** bytes of each rank's fio file on each path */
  size: number;
  /** ms of the random 4 KiB read job */
  runtime: number;
  /** the checkpoint burst on the shared path (false: none) */
  checkpoint: boolean;
  /** bytes each rank writes to the shared path at once, then reads back */
  checkpointSize: number;
  /** try O_DIRECT (false: buffered with fsync, always) */
  direct: boolean;
}

// 1 GiB a rank: well past a drive's DRAM cache and SLC burst at sequential rates of a few GB/s
// (seconds a job); 10 s of random reads as fio's examples time IOPS. A checkpoint of 4 GiB a rank
// is a 7B model's bf16 weights spread over 4 ranks, the size class the burst stands in for.
export const STORAGE_DEFAULTS: Omit<StorageParams, "local" | "shared"> = { size: 1024 ** 3, runtime: 10_000, checkpoint: true, checkpointSize: 4 * 1024 ** 3, direct: true };

export const storageBlock = () =>
  strictMap({
    local: nonEmptyText().optional(),
    shared: nonEmptyText().optional(),
    size: size().optional(),
    runtime: duration().optional(),
    checkpoint: bool().optional(),
    checkpointSize: size().optional(),
    direct: bool().optional(),
  });

export function resolveStorage(written: Partial<StorageParams> | undefined, ctx: ResolveContext): StorageParams {
  const p: StorageParams = { ...STORAGE_DEFAULTS, ...given(written ?? {}) };
  if (!p.local && !p.shared && ctx.sound("storage"))
    ctx.report([...ctx.testAt, "storage"], 'a storage test needs "local" (the node\'s NVMe scratch path) or "shared" (the shared filesystem path), or both', "value");
  return p;
}

/** the workload command */
export function storageArgs(p: StorageParams | undefined): string[] {
  if (!p) return ["storage"];
  return [
    "storage",
    ...(p.local ? ["--local", p.local] : []),
    ...(p.shared ? ["--shared", p.shared] : []),
    "--size",
    String(p.size),
    "--runtime",
    String(p.runtime / 1000),
    "--checkpoint-size",
    String(p.shared && p.checkpoint ? p.checkpointSize : 0),
    "--direct",
    p.direct ? "auto" : "off",
  ];
}
