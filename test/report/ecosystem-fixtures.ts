// Runs shaped for the ecosystem outputs' tests: a gemm test whose GPU 3 is slow (per-part verdicts),
// a run killed during its second test (written ahead: the rest "unfinished"), and the real H100
// captures as a node's inventory.
import type { ComponentValues, Expectation, Measurement, Outcome, ResultsFile } from "../../lib/core/types.ts";
import { results, test } from "../fixtures/results/build.ts";
import { FIXTURES } from "../fixtures/results/fixtures.ts";
import { node } from "../parsers/_inventory.ts";

const gpu = (index: number, tflops: number | null): ComponentValues => ({
  part: { type: "gpu", host: "gpu-01", rank: index, index, uuid: `GPU-0000000${index}-aaaa-bbbb-cccc-dddddddddddd`, pciBusId: `00000000:${18 + index}:00.0` },
  metrics: { gemm_bf16_tflops: tflops },
  ...(tflops === null ? { unmeasured: { gemm_bf16_tflops: "rank 2 printed no result" } } : {}),
});
const rule: Expectation = { metric: "gemm_bf16_tflops", unit: "TFLOP/s", min: 700, perComponent: true, text: "gemm_bf16_tflops >= 700 TFLOP/s" };

/** GPU 0 and 1 pass, GPU 2 was not measured, GPU 3 is slow. */
export function gemmParts(): ResultsFile {
  const measurement: Measurement = { metrics: { gemm_bf16_tflops_min: 512.3 }, components: [gpu(0, 790), gpu(1, 800), gpu(2, null), gpu(3, 512.3)] };
  return results([test("gemm", "gemm", [rule], [{ unit: "all", hosts: ["gpu-01"], status: "completed", startS: 1, durationS: 40, measurement, tail: "", ranks: 4 }])]);
}

/** The outcome a run written ahead gives a test that never ended (Outcome gains it with that change). */
export const UNFINISHED = "unfinished" as unknown as Outcome;

/** passing's first test finished, the run killed during its second: the second and third never ended, no endedAt. */
export function killedAhead(): ResultsFile {
  const r = FIXTURES.passing();
  const tests = r.tests.map((t, i) => (i === 0 ? t : { ...t, units: [], outcome: UNFINISHED }));
  return { ...r, tests, endedAt: null, complete: false, outcome: "passed" };
}

export const H100_NODE = () =>
  node({
    q: "nvidia-smi-q-h100-8gpu-565.57.01.txt",
    nvlink: "nvlink-s-h100-1gpu-590.48.01-tab-indent.txt",
    ibstat: "ibstat-h100-cx7-ndr-ib-with-eth-ports-down.txt",
    hostname: "gpu-01",
  });
