// kind: dcgm: NVIDIA's own GPU diagnostic, `dcgmi diag -r <level> -j`, one process per node: each
// failed, warned or skipped plugin result named by GPU with DCGM's text and DCGM_FR code; a node
// without DCGM (no dcgmi, no nv-hostengine) is unmeasured with the reason, never a pass.
import * as z from "../../core/schema.ts";
import { lower } from "../../core/metrics.ts";
import type { KindBlocks, TestSpec } from "../../core/types.ts";
import { dcgmMeasurement } from "./parse.ts";
import type { TestKind } from "../../core/kind.ts";
import { DCGM_DEFAULT_LEVEL, type DcgmParams, dcgmBlock, resolveDcgm } from "./params.ts";

export type { DcgmParams } from "./params.ts";

declare module "../../core/types.ts" {
  interface KindBlocks {
    dcgm: { dcgm: DcgmParams };
  }
}

export const dcgm: TestKind<"dcgm", DcgmParams, KindBlocks["dcgm"]> = {
  name: "dcgm",
  summary: "NVIDIA DCGM's diagnostic (dcgmi diag -r <level> -j) on each node: failed, warned and skipped plugin results per GPU with DCGM_FR codes",
  block: z.lazy(dcgmBlock),
  keys: [
    {
      key: "level",
      default: String(DCGM_DEFAULT_LEVEL),
      doc: "dcgmi diag -r level: 1 software only (seconds), 2 adds memory, PCIe and short stress (minutes), 3 and 4 long stress (set the test's timeout: dcgmi gets it less 60 s)",
    },
  ],
  ranksPerNode: 1,
  fixedRanksPerNode: 1,
  perNode: true,
  resolve: (block, ctx) => ({ dcgm: resolveDcgm(block, ctx) }),
  params: (spec: TestSpec) => spec.dcgm,
  metrics: {
    dcgm_failures: lower(
      "count",
      "plugin results DCGM failed, over all GPUs of the node (a 3.x result for several GPUs counts once per GPU), each named with its GPU, DCGM's text and DCGM_FR code",
    ),
    dcgm_warnings: lower("count", "plugin results DCGM marked Warn, named as failures are"),
    dcgm_skipped: lower("count", "plugin results DCGM skipped (never counted as passes), each named with DCGM's reason when it gives one"),
  },
  componentMetrics: {
    dcgm_gpu_failures: lower(
      "count",
      "this GPU's failed DCGM plugin results; a failing check on it quotes each one's test, DCGM_FR code and DCGM's text (in the summary, its JUnit testcase, report.html and the certificate); unmeasured when DCGM gave it no result or only skips",
    ),
  },
  headline: "dcgm_failures",
  // dcgmi loads the GPUs itself and reads them through DCGM: nvidia-smi sampling beside it adds nothing
  telemetry: false,
  args: (p) => ["dcgm", "--level", String(p?.level ?? DCGM_DEFAULT_LEVEL), ...(p ? ["--timeout", String(p.timeoutS)] : [])],
  measure: (output) => dcgmMeasurement(output),
  plots: () => [],
  // no torch, no GPU count, no dcgmi: a node without DCGM must reach the workload, which says so (unmeasured)
  needs: () => ({ torch: false, gpus: 0, nccl: false }),
  resultSource:
    "the GPUCHECK_RESULT line of `gpucheck_workload dcgm` (workload/gpucheck_workload/dcgm.py): dcgmi's JSON document or why there is none, and nvidia-smi -q's GPUs, as lib/kinds/dcgm/parse.ts reads it",
};
