// lib/kinds/dcgm/parse.ts and dcgm-doc.ts: the dcgm command's GPUCHECK_RESULT → failures, warnings and
// skips named by GPU with DCGM's text and DCGM_FR code, on real `dcgmi diag -j` captures of DCGM 4.2.3
// and 3.1.0 (test/fixtures/dcgm/README.md); every way of having no document is every metric null with
// its reason. The GB10 captures come without their node's nvidia-smi, so their GPU is named by index
// only; the 3.1.0 capture is paired with the UUIDs and bus ids of another 8-GPU node's nvidia-smi -q
// (workload/tests/fixtures/nvidia-smi-q-h100-8gpu-565.57.01.txt), a pairing made here, not captured.
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { dcgmMeasurement } from "../../lib/kinds/dcgm/parse.ts";

const fixture = (name: string) => readFileSync(new URL(`../fixtures/dcgm/${name}`, import.meta.url), "utf8");
const doc = (name: string) => {
  const text = fixture(name);
  return JSON.parse(text.slice(text.indexOf("{")));
};
const H100 = [
  ["GPU-b42dd28e-ffdd-8720-1df0-98bd8cdc05b1", "00000000:18:00.0"],
  ["GPU-7c3cadbd-17e5-0913-f69b-c618122ea0cd", "00000000:2A:00.0"],
  ["GPU-2d50cdf6-dd67-9f2e-855e-0d4d6d395a2f", "00000000:3A:00.0"],
  ["GPU-d1838e76-90e6-4408-711d-aeeaa2e1fd14", "00000000:5D:00.0"],
  ["GPU-72be6e5d-3c1b-0d37-98ac-d3ef159f2589", "00000000:9A:00.0"],
  ["GPU-52378fbc-3124-3895-13b6-1dd179563e0f", "00000000:AB:00.0"],
  ["GPU-83a5aebb-b71c-c570-aa83-185e1233fe97", "00000000:BA:00.0"],
  ["GPU-33135771-a848-ece1-b61e-489e221d663c", "00000000:DB:00.0"],
].map(([uuid, pci_bus_id], index) => ({ index, uuid, pci_bus_id, name: "NVIDIA H100 80GB HBM3" }));
const base = { host: "gpu01", level: 2, command: ["dcgmi", "diag", "-r", "2", "-j"], timeout_s: 840, exit_code: 0, stderr: "" };
const NO_SMI = { gpus: null, gpus_unread: "nvidia-smi not found" };
const run = (o: object) => dcgmMeasurement(`[gpu01 rank 0] GPUCHECK_RESULT ${JSON.stringify({ ...base, ...o })}\n`);
const PERSISTENCE =
  'gpu01 GPU 0: software Fail — DCGM_FR_PERSISTENCE_MODE (29): Persistence Mode: Persistence mode for GPU 0 is disabled. Enable persistence mode by running "nvidia-smi -i <gpuId> -pm 1 " as root.';

describe("dcgmMeasurement on real captures", () => {
  test("DCGM 4.2.3 level 1 (GB10): the software Fail counted on GPU 0 with DCGM_FR_PERSISTENCE_MODE and DCGM's text", () => {
    const m = run({ exit_code: 226, document: doc("dcgm-4.2.3-gb10-level1-persistence-fail.json"), ...NO_SMI });
    expect(m.metrics).toEqual({ dcgm_skipped: 0, dcgm_failures: 1, dcgm_warnings: 0 });
    expect(m.details?.dcgm_failures).toBe(PERSISTENCE);
    expect(m.details?.dcgm_warnings).toBe("none in 1 results (DCGM 4.2.3 (4.x format), level 2)");
    // the GPU's own part carries DCGM's code and text, for its verdict
    expect(m.components).toEqual([
      { part: { type: "gpu", host: "gpu01", index: 0 }, metrics: { dcgm_gpu_failures: 1 }, details: { dcgm_gpu_failures: PERSISTENCE.slice("gpu01 GPU 0: ".length) } },
    ]);
    expect(m.unmeasured).toBeUndefined();
  });

  test("DCGM 4.2.3 level 2 (GB10): memory and pcie Skip are recorded as skipped, never passes", () => {
    const m = run({ exit_code: 226, document: doc("dcgm-4.2.3-gb10-level2-fail-and-skips.json"), ...NO_SMI });
    expect(m.metrics).toEqual({ dcgm_skipped: 2, dcgm_failures: 1, dcgm_warnings: 0 });
    expect(m.details?.dcgm_skipped).toBe("gpu01 GPU 0: memory Skip; gpu01 GPU 0: pcie Skip");
    expect(m.details?.dcgm_failures).toBe(PERSISTENCE);
    expect(m.details?.dcgm_warnings).toBe("none in 1 results (DCGM 4.2.3 (4.x format), level 2)");
    expect(m.components?.[0]?.metrics).toEqual({ dcgm_gpu_failures: 1 });
  });

  test("DCGM 3.1.0 (8 GPUs, a warning line before the JSON, nulls between tests): every GPU passes, named by UUID and bus", () => {
    const m = run({ document: doc("dcgm-3.1.0-8gpu-pass-nvvs-warning-line.txt"), gpus: H100 });
    expect(m.metrics).toEqual({ dcgm_skipped: 0, dcgm_failures: 0, dcgm_warnings: 0 });
    // 9 deployment tests for "0,1,…,7" expanded per GPU, and the software test's 8 numeric gpu_ids
    expect(m.details?.dcgm_failures).toBe("none in 80 results (DCGM 3.1.0 (3.x format), level 2)");
    expect(m.components).toHaveLength(8);
    expect(m.components?.[3]).toEqual({
      part: { type: "gpu", host: "gpu01", index: 3, uuid: H100[3]!.uuid, pciBusId: "00000000:5D:00.0", name: "NVIDIA H100 80GB HBM3" },
      metrics: { dcgm_gpu_failures: 0 },
    });
  });
});

describe("dcgmMeasurement on synthetic documents (named as such: no real capture of these)", () => {
  // the 3.x shape with a failure, as NVIDIA/DCGM's nvvs JsonOutput.h documents it: warnings with error_id
  const fail3 = {
    "DCGM GPU Diagnostic": {
      test_categories: [
        { category: "Deployment", tests: [{ name: "Denylist", results: [{ gpu_ids: "0,1", status: "Pass" }] }] },
        {
          category: "Hardware",
          tests: [
            {
              name: "GPU Memory",
              results: [
                { gpu_ids: "0", status: "Pass" },
                { gpu_ids: "1", status: "Fail", warnings: [{ warning: "Pending page retirements found on GPU 1", error_id: 6 }] },
              ],
            },
            {
              name: "Diagnostic",
              results: [
                { gpu_ids: "0", status: "Warn", warnings: ["GPU 0 clocks throttled"] },
                { gpu_ids: "1", status: "Skip", info: "GPU 1 failed earlier" },
              ],
            },
          ],
        },
      ],
      version: "3.3.5",
    },
  };

  test("3.x: the failing GPU named with DCGM_FR code and text; its peer passes; warn and skip counted apart", () => {
    const m = run({ exit_code: 226, document: fail3, gpus: H100.slice(0, 2) });
    expect(m.metrics).toEqual({ dcgm_skipped: 1, dcgm_failures: 1, dcgm_warnings: 1 });
    expect(m.details?.dcgm_failures).toBe(
      `gpu01 GPU 1 (${H100[1]!.uuid}, 00000000:2A:00.0): GPU Memory Fail — DCGM_FR_PENDING_PAGE_RETIREMENTS (6): Pending page retirements found on GPU 1`,
    );
    expect(m.details?.dcgm_warnings).toBe(`gpu01 GPU 0 (${H100[0]!.uuid}, 00000000:18:00.0): Diagnostic Warn — GPU 0 clocks throttled`);
    expect(m.details?.dcgm_skipped).toBe(`gpu01 GPU 1 (${H100[1]!.uuid}, 00000000:2A:00.0): Diagnostic Skip — GPU 1 failed earlier`);
    expect(m.components?.map((c) => c.metrics.dcgm_gpu_failures)).toEqual([0, 1]);
  });

  test("every result skipped: failures and warnings unmeasured, the GPU unmeasured, never 0", () => {
    const skipped = {
      "DCGM Diagnostic": { test_categories: [{ category: "Hardware", tests: [{ name: "memory", results: [{ entity_group: "GPU", entity_id: 0, status: "Skip" }] }] }] },
    };
    const m = run({ document: skipped, ...NO_SMI });
    expect(m.metrics).toEqual({ dcgm_skipped: 1, dcgm_failures: null, dcgm_warnings: null });
    expect(m.unmeasured).toEqual({
      dcgm_failures: "DCGM ran no test to the end: every result was skipped (memory on gpu01 GPU 0)",
      dcgm_warnings: "DCGM ran no test to the end: every result was skipped (memory on gpu01 GPU 0)",
    });
    expect(m.components).toEqual([
      {
        part: { type: "gpu", host: "gpu01", index: 0 },
        metrics: { dcgm_gpu_failures: null },
        unmeasured: { dcgm_gpu_failures: "every DCGM test on this GPU was skipped: memory" },
      },
    ]);
  });

  test("a status word the parser does not know is not a pass", () => {
    const odd = {
      "DCGM Diagnostic": { test_categories: [{ category: "Stress", tests: [{ name: "pulse_test", results: [{ entity_group: "GPU", entity_id: 0, status: "Incomplete" }] }] }] },
    };
    const m = run({ document: odd, ...NO_SMI });
    expect(m.metrics.dcgm_failures).toBeNull();
    expect(m.unmeasured?.dcgm_failures).toBe('DCGM gave result status "Incomplete" (pulse_test on gpu01 GPU 0), which this parser does not know: not counted as a pass');
    expect(m.components?.[0]?.unmeasured).toEqual({ dcgm_gpu_failures: 'DCGM result status "Incomplete" (pulse_test) not known: not counted as a pass' });
  });

  test("a GPU nvidia-smi lists but DCGM gave no result for is unmeasured", () => {
    const m = run({ document: doc("dcgm-4.2.3-gb10-level1-persistence-fail.json"), gpus: H100.slice(0, 2) });
    expect(m.components?.[1]?.unmeasured).toEqual({ dcgm_gpu_failures: "DCGM reported no result for this GPU" });
  });
});

describe("dcgmMeasurement without a document: every metric null with the exact reason", () => {
  const all = (why: string) => ({ dcgm_failures: why, dcgm_warnings: why, dcgm_skipped: why, dcgm_gpu_failures: why });
  const cases: Array<[string, object, string]> = [
    [
      "dcgmi not on PATH",
      {
        exit_code: null,
        document: null,
        unread: "dcgmi not found on PATH: DCGM is not installed on this node (install datacenter-gpu-manager and start nv-hostengine, or remove this test from the suite)",
      },
      "dcgmi not found on PATH: DCGM is not installed on this node (install datacenter-gpu-manager and start nv-hostengine, or remove this test from the suite)",
    ],
    [
      "JSON that is not DCGM's",
      { document: { error: "nope" } },
      'dcgmi printed JSON this parser does not recognise: top-level keys "error" (expected "DCGM Diagnostic" from DCGM 4.x or "DCGM GPU Diagnostic" from 3.x)',
    ],
    [
      "a 4.x runtime error",
      { document: { "DCGM Diagnostic": { runtime_error: "Unable to create NVVS process " } } },
      "DCGM's diagnostic stopped with a runtime error: Unable to create NVVS process",
    ],
    ["no test_categories", { document: { "DCGM GPU Diagnostic": { version: "3.3.5" } } }, 'the "DCGM GPU Diagnostic" document has no test_categories list: DCGM ran no test'],
    ["no result in the categories", { document: { "DCGM Diagnostic": { test_categories: [] } } }, 'the "DCGM Diagnostic" document lists no test result: DCGM ran no test'],
  ];
  for (const [what, o, why] of cases) {
    test(what, () => {
      const m = run({ ...NO_SMI, ...o });
      expect(m.metrics).toEqual({ dcgm_failures: null, dcgm_warnings: null, dcgm_skipped: null });
      expect(m.unmeasured).toEqual(all(why));
      expect(m.components).toBeUndefined();
    });
  }

  test("no GPUCHECK_RESULT line", () => {
    expect(() => dcgmMeasurement("Traceback (most recent call last):\n")).toThrow("no GPUCHECK_RESULT line in rank 0's output: the dcgm run did not finish");
  });
});
