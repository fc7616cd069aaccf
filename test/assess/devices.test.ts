// A GPU suite's verdict on where its ranks ran (lib/assess/devices.ts, issue 26 item 1): a rank on a
// CPU, two ranks of a node on one GPU, or fewer GPUs than gpusPerNode is an error naming the rank
// and node, whatever the thresholds say. The CPU output is a real run of the workload's gemm on two
// CPU ranks (test/fixtures/devices/gemm-cpu-2ranks-gloo.txt: `--backend gloo gemm --dtypes fp32
// --min-size 64 --max-size 128 --step 64 --iters 2 --warmup 1 --checksum-size 64` on the dev VM,
// torch 1.13), i.e. what a GPU test whose workload fell back to gloo at run time reported. The GPU
// identities are those of the H100 capture in workload/tests/fixtures/nvidia-smi-q-h100-8gpu-565.57.01.txt.
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { deviceProblems } from "../../lib/assess/devices.ts";
import { judgeUnit } from "../../lib/assess/judge.ts";
import { loadSuite } from "../../lib/load/mod.ts";
import { gemmMeasurement } from "../../lib/kinds/gemm/parse.ts";
import type { RankDeviceId } from "../../lib/core/types.ts";

const CPU_GEMM = readFileSync(join(import.meta.dir, "../fixtures/devices/gemm-cpu-2ranks-gloo.txt"), "utf8");
const gpu = (rank: number, index: number, uuid: string | null, pciBusId: string | null, host = "gpu01"): RankDeviceId => ({
  rank,
  host,
  type: "cuda",
  name: "NVIDIA H100 80GB HBM3",
  index,
  uuid,
  pciBusId,
});
const H100 = [
  ["GPU-5d2a9c3e-1f0b-4c47-a3c1-9d6a0f1b2c3d", "00000000:18:00.0"],
  ["GPU-8b1e7f20-44a1-4e2b-9b55-0c7d3e9a1f42", "00000000:2A:00.0"],
] as const;

describe("a GPU test whose ranks ran on CPUs", () => {
  test("h100-8x's gemm thresholds on the CPU output: an error naming each rank and the node, never a pass", async () => {
    const suite = await loadSuite("h100-8x");
    const spec = suite.tests.find((t) => t.name === "gemm")!;
    const m = gemmMeasurement(CPU_GEMM);
    expect(m.devices!.map((d) => [d.rank, d.host, d.type])).toEqual([
      [0, "vm", "cpu"],
      [1, "vm", "cpu"],
    ]);
    const v = judgeUnit(spec.expect, { status: "completed", measurement: m, gpusPerNode: spec.gpusPerNode }, undefined, [m]);
    expect(v.outcome).toBe("error");
    expect(v.reason).toStartWith(
      "rank 0 on vm ran on the CPU (AMD EPYC), not a GPU, while the suite asks for 8 GPUs per node: its figures are not a GPU's; " +
        "check that torch sees the GPUs on vm (nvidia-smi, the driver, CUDA_VISIBLE_DEVICES); " +
        "rank 1 on vm ran on the CPU (AMD EPYC), not a GPU, while the suite asks for 8 GPUs per node: its figures are not a GPU's; " +
        "check that torch sees the GPUs on vm (nvidia-smi, the driver, CUDA_VISIBLE_DEVICES)",
    );
  });

  test("the same output in a CPU suite (gpusPerNode 0) is judged on its thresholds as before", () => {
    const m = gemmMeasurement(CPU_GEMM);
    const v = judgeUnit([], { status: "completed", measurement: m, gpusPerNode: 0 });
    expect(v.outcome).toBe("passed");
  });
});

describe("deviceProblems", () => {
  test("eight ranks on eight named GPUs: nothing to say", () => {
    const devices = Array.from({ length: 8 }, (_, i) => gpu(i, i, `GPU-${i}`, `00000000:${18 + i}:00.0`));
    expect(deviceProblems(devices, 8)).toEqual([]);
  });

  test("two ranks on one GPU (one visible device: cuda:0 for both) name both ranks, the node and the GPU; the node then has too few GPUs", () => {
    expect(deviceProblems([gpu(0, 0, ...H100[0]), gpu(1, 0, ...H100[0])], 2)).toEqual([
      "ranks 0, 1 on gpu01 all ran on the same GPU GPU-5d2a9c3e-1f0b-4c47-a3c1-9d6a0f1b2c3d: each rank needs its own GPU; check how GPUs are given to ranks on gpu01 (CUDA_VISIBLE_DEVICES, --gpus-per-task)",
      "gpu01: 1 GPU measured (ranks 0, 1), fewer than the suite's gpusPerNode 2: the other GPUs of gpu01 were never measured",
    ]);
  });

  test("the same GPU on two nodes is two GPUs: a UUID is compared within its node", () => {
    expect(deviceProblems([gpu(0, 0, ...H100[0], "gpu01"), gpu(1, 0, ...H100[0], "gpu02")], 1)).toEqual([]);
  });

  test("fewer GPUs than gpusPerNode names the node and its ranks", () => {
    expect(deviceProblems([gpu(0, 0, ...H100[0]), gpu(1, 1, ...H100[1])], 8)).toEqual([
      "gpu01: 2 GPUs measured (ranks 0, 1), fewer than the suite's gpusPerNode 8: the other GPUs of gpu01 were never measured",
    ]);
  });

  test("a GPU without a UUID is told apart by its PCI bus; one with neither is an error with the workload's reason", () => {
    expect(deviceProblems([gpu(0, 0, null, H100[0][1]), gpu(1, 1, null, H100[1][1])], 2)).toEqual([]);
    expect(deviceProblems([{ ...gpu(0, 0, null, null), unnamed: "torch 1.13.1 gives no GPU UUID" }, gpu(1, 1, ...H100[1])], 1)).toEqual([
      "rank 0 on gpu01 ran on a GPU it could not name (no UUID or PCI bus: torch 1.13.1 gives no GPU UUID): a figure that names no GPU cannot be told from another rank's; check that nvidia-smi runs on gpu01",
    ]);
  });

  test("a mix: the CPU rank is named, and the node's GPU count falls short", () => {
    const cpu: RankDeviceId = { rank: 1, host: "gpu01", type: "cpu", name: "AMD EPYC 9654", index: null, uuid: null, pciBusId: null };
    expect(deviceProblems([gpu(0, 0, ...H100[0]), cpu], 2)).toEqual([
      "rank 1 on gpu01 ran on the CPU (AMD EPYC 9654), not a GPU, while the suite asks for 2 GPUs per node: its figures are not a GPU's; check that torch sees the GPUs on gpu01 (nvidia-smi, the driver, CUDA_VISIBLE_DEVICES)",
      "gpu01: 1 GPU measured (ranks 0, 1), fewer than the suite's gpusPerNode 2: the other GPUs of gpu01 were never measured",
    ]);
  });
});
