// kind: membw: memory bandwidth of every GPU at once: a device-to-device copy and a STREAM-like triad
// written with torch ops, each GPU's best and median GB/s, the worst GPU named.
import * as z from "../../core/schema.ts";
import { higher, type MetricInfo } from "../../core/metrics.ts";
import { membwMeasurement } from "./parse.ts";
import type { PlotSpec } from "../../core/plot-svg.ts";
import type { KindBlocks, TestSpec } from "../../core/types.ts";
import { copyArgs, copyBlock, copyKeys } from "../copy-params.ts";
import { type TestKind, torchOnEveryGpu } from "../../core/kind.ts";
import { MEMBW_OPS, type MembwParams, resolveMembw } from "./params.ts";

export type { MembwParams } from "./params.ts";

const WHAT = {
  copy: "device-to-device copy (dst.copy_(src), 2 × size bytes a call)",
  triad: "triad (torch.add(b, c, alpha=s, out=a), 3 × size bytes a call)",
};
const GB = "GB/s, 1 GB = 1e9 bytes";

const metrics: Record<string, MetricInfo> = Object.fromEntries(
  MEMBW_OPS.flatMap((op) => [
    [`membw_${op}_gbps_min`, higher("GB/s", `${WHAT[op]}: the lowest per-GPU best ${GB} (every GPU's best and median in the details; on CPU the details say "device: cpu")`)],
    [`membw_${op}_median_min`, higher("GB/s", `${WHAT[op]}: the lowest per-GPU median ${GB}`)],
  ]),
);

// each GPU's own values (Measurement.components), for thresholds and the outlier rule per GPU
const componentMetrics: Record<string, MetricInfo> = Object.fromEntries(
  MEMBW_OPS.flatMap((op) => [
    [`membw_${op}_gbps`, higher("GB/s", `${WHAT[op]}: this GPU's best ${GB}`)],
    [`membw_${op}_median`, higher("GB/s", `${WHAT[op]}: this GPU's median ${GB}`)],
  ]),
);

declare module "../../core/types.ts" {
  interface KindBlocks {
    membw: { membw: MembwParams };
  }
}

export const membw: TestKind<"membw", MembwParams, KindBlocks["membw"]> = {
  name: "membw",
  summary: "memory bandwidth GB/s of every GPU at once: device-to-device copy and a triad, each GPU's best and median",
  block: z.lazy(copyBlock),
  keys: copyKeys(
    "2GiB (64MiB when gpusPerNode is 0)",
    "bytes per buffer (the copy uses two, the triad three); far above the 50 MiB L2 of an H100 so HBM is measured",
    "calls per operation",
  ),
  perNode: false,
  resolve: (block, ctx) => ({ membw: resolveMembw(block, ctx) }),
  params: (spec: TestSpec) => spec.membw,
  metrics,
  componentMetrics,
  headline: "membw_copy_gbps_min",
  telemetry: true,
  processGroup: true,
  args: (p) => copyArgs("membw", p),
  measure: (output) => membwMeasurement(output),
  plots: (test, ctx) => {
    const plots: PlotSpec[] = [];
    for (const op of MEMBW_OPS) {
      // each GPU's timed calls in order: a GPU that slows as it heats shows as a falling line
      const series = test.units.flatMap((u) => {
        const raw = u.measurement?.raw as { ranks?: Array<{ host: string; rank: number; ops: Record<string, { gbps?: number[] }> }> } | undefined;
        return (raw?.ranks ?? []).flatMap((r) => {
          const calls = r.ops?.[op]?.gbps;
          return Array.isArray(calls) ? [{ name: `${r.host} rank ${r.rank}`, points: calls.map((y, i) => [i + 1, y] as [number, number]) }] : [];
        });
      });
      if (series.length === 0) continue;
      plots.push(ctx.plot(`membw_${op}_gbps_min`, { kind: "membw_gbps", title: `${test.name}: ${op} GB/s per call`, xLabel: "timed call", yLabel: "GB/s", series }));
    }
    return plots;
  },
  needs: torchOnEveryGpu,
  resultSource:
    "the GPUCHECK_RESULT line rank 0 of `gpucheck_workload membw` prints (workload/gpucheck_workload/membw.py), every rank's copy and triad gathered, as lib/kinds/membw/parse.ts reads it",
};
