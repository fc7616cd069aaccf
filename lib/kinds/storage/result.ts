// The storage command's GPUCHECK_RESULT line (workload/gpucheck_workload/kinds/storage.py) as
// lib/kinds/storage/parse.ts reads it: every rank's paths, each with the device behind it and fio's
// figures per job (workload/gpucheck_workload/fio.py), or why a job or a whole path was not measured.
import { z } from "zod";

const figures = () =>
  z.object({
    mbps: z.number().describe("fio bw_bytes / 1e6 (MB/s)"),
    iops: z.number().nullable(),
    clat_p99_us: z.number().nullable().describe("fio clat percentile 99.000000, in µs"),
    clat_mean_us: z.number().nullable(),
    io_bytes: z.number().int(),
    runtime_ms: z.number().nullable(),
    fio: z.string().nullable().describe('fio\'s "fio version"'),
  });
const job = () => z.union([figures(), z.object({ unmeasured: z.string() })]);

const device = z
  .object({ majmin: z.string().nullable(), mount: z.string().nullable(), fstype: z.string().nullable(), source: z.string().nullable(), unread: z.string().optional() })
  .describe("the mount behind the path, from /proc/self/mountinfo");

const target = z.object({
  path: z.string(),
  device: device.nullable(),
  io: z.string().optional().describe("direct I/O, or buffered and why"),
  unmeasured: z.string().optional().describe("fio missing or the path not writable: names the node and path"),
  seq_write: job().optional(),
  seq_read: job().optional(),
  rand_read: job().optional(),
});

const phase = () => z.union([figures().extend({ wall_s: z.number() }), z.object({ unmeasured: z.string() })]);

export const storageResult = z.lazy(() =>
  z.object({
    world_size: z.number().int().positive(),
    size: z.number().int().positive(),
    runtime_s: z.number(),
    checkpoint_size: z.number().int().nonnegative(),
    ranks: z.array(
      z.object({
        rank: z.number().int().nonnegative(),
        host: z.string(),
        targets: z.object({ local: target.optional(), shared: target.optional() }),
        checkpoint: z
          .object({ path: z.string(), bytes: z.number().int(), io: z.string().nullable(), unmeasured: z.string().optional(), write: phase().optional(), read: phase().optional() })
          .nullable(),
      }),
    ),
  }),
);
