// kind: storage: what a training job's data loading and checkpoints will get from the node's local
// path (NVMe scratch) and the shared filesystem, measured with fio on every rank: sequential write
// and read GB/s, random 4 KiB read IOPS and p99 completion latency, then a checkpoint burst (every
// rank writes to the shared path at once, then reads back). Each rank's path is a part ("disk",
// named with the device behind it), so an outlier rule names the slow disk of the slow node.
import * as z from "../../core/schema.ts";
import { higher, lower, type MetricInfo } from "../../core/metrics.ts";
import type { KindBlocks, TestSpec } from "../../core/types.ts";
import type { TestKind } from "../../core/kind.ts";
import { storageMeasurement } from "./parse.ts";
import { type StorageParams, resolveStorage, storageArgs, storageBlock } from "./params.ts";

export type { StorageParams } from "./params.ts";

const FIO = "fio --ioengine=libaio, O_DIRECT where the filesystem takes it (else buffered with end_fsync and the cache invalidated: the part's details say which)";
const WHERE = { local: "the node's local path (storage.local)", shared: "the shared filesystem path (storage.shared)" };

const metrics: Record<string, MetricInfo> = {};
const componentMetrics: Record<string, MetricInfo> = {};
for (const role of ["local", "shared"] as const) {
  const at = WHERE[role];
  metrics[`storage_${role}_write_gbyte_s_min`] = higher(
    "GB/s",
    `${at}: the slowest rank's sequential write (rw=write, bs=1MiB, iodepth=8, storage.size bytes; ${FIO}); every rank's path named in the details`,
  );
  metrics[`storage_${role}_read_gbyte_s_min`] = higher("GB/s", `${at}: the slowest rank's sequential read of the file it wrote (rw=read, bs=1MiB, iodepth=8)`);
  metrics[`storage_${role}_randread_iops_min`] = higher("IOPS", `${at}: the lowest rank's random 4 KiB read IOPS (rw=randread, iodepth=32, storage.runtime long)`);
  metrics[`storage_${role}_randread_p99_us_max`] = lower("us", `${at}: the highest rank's p99 completion latency of the random 4 KiB reads (fio clat percentile 99)`);
  componentMetrics[`storage_${role}_write_gbyte_s`] = higher("GB/s", `${at}: this rank's sequential write GB/s`);
  componentMetrics[`storage_${role}_read_gbyte_s`] = higher("GB/s", `${at}: this rank's sequential read GB/s`);
  componentMetrics[`storage_${role}_randread_iops`] = higher("IOPS", `${at}: this rank's random 4 KiB read IOPS`);
  componentMetrics[`storage_${role}_randread_p99_us`] = lower("us", `${at}: this rank's random 4 KiB read p99 completion latency`);
}
for (const phase of ["write", "read"] as const) {
  metrics[`storage_checkpoint_${phase}_total_gbyte_s`] = higher(
    "GB/s",
    `checkpoint burst on the shared path: every rank's ${phase} of storage.checkpointSize bytes started at once after a barrier; all ranks' bytes over the slowest rank's wall time`,
  );
  componentMetrics[`storage_checkpoint_${phase}_gbyte_s`] = higher("GB/s", `checkpoint burst: this rank's ${phase} GB/s (bytes over its wall time from the common start)`);
}

declare module "../../core/types.ts" {
  interface KindBlocks {
    storage: { storage: StorageParams };
  }
}

export const storage: TestKind<"storage", StorageParams, KindBlocks["storage"]> = {
  name: "storage",
  summary: "fio on every node: sequential GB/s, random 4 KiB read IOPS and p99 latency on the local and shared paths, and a checkpoint write/read burst of every node at once",
  block: z.lazy(storageBlock),
  keys: [
    { key: "local", doc: "the node's local path (NVMe scratch), made if missing; {rank} and {host} are replaced on the node" },
    { key: "shared", doc: "the shared filesystem path every node sees; the checkpoint burst is written there" },
    { key: "size", default: "1GiB", doc: "bytes of each rank's fio file on each path" },
    { key: "runtime", default: "10s", doc: "length of the random 4 KiB read job" },
    { key: "checkpoint", default: "true", doc: "run the checkpoint burst on the shared path" },
    { key: "checkpointSize", default: "4GiB", doc: "bytes each rank writes to the shared path at once, then reads back" },
    { key: "direct", default: "true", doc: "O_DIRECT where the filesystem takes it; false: buffered with fsync at the end, always" },
  ],
  // one fio process per node; a suite may give more ranks, each its own path through {rank}
  ranksPerNode: 1,
  perNode: false,
  resolve: (block, ctx) => ({ storage: resolveStorage(block, ctx) }),
  params: (spec: TestSpec) => spec.storage,
  metrics,
  componentMetrics,
  headline: "storage_local_write_gbyte_s_min",
  headlineFor: (p) => (p && !p.local && p.shared ? "storage_shared_write_gbyte_s_min" : "storage_local_write_gbyte_s_min"),
  telemetry: false,
  args: storageArgs,
  measure: (output) => storageMeasurement(output),
  plots: () => [],
  needs: () => ({ torch: true, gpus: 0, nccl: false, tools: ["fio"] }),
  resultSource:
    "the GPUCHECK_RESULT line rank 0 of `gpucheck_workload storage` prints (workload/gpucheck_workload/storage.py): every rank's paths with the device behind each and fio's figures per job, and the checkpoint burst, as lib/kinds/storage/parse.ts reads it",
};
