// The devices of an nccl-tests run, from its "#  Rank …" lines in real logs (test/fixtures/nccl,
// sources in its README), judged by the GPU-suite rules of lib/assess/devices.ts: a collective whose
// ranks ran on CPUs (gpucheck's gloo loop prints device -1) is an error naming each rank in a GPU
// suite, and real multi-node GPU runs have nothing to say.
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { deviceProblems } from "../../lib/assess/devices.ts";
import { ncclRankDevices } from "../../lib/parsers/nccl-devices.ts";

const fixture = (name: string) => readFileSync(join(import.meta.dir, "../fixtures/nccl", name), "utf8");

describe("ncclRankDevices", () => {
  test("2 nodes × 8 H100 (GCP A3-Mega): every rank on its own GPU, named by its bus; a GPU suite of 8 per node has nothing to say", () => {
    const d = ncclRankDevices(fixture("h100-2node-16gpu-allreduce-a3mega.txt"))!;
    expect(d).toHaveLength(16);
    expect(d[1]).toEqual({ rank: 1, host: d[1]!.host, type: "cuda", name: "NVIDIA H100 80GB HBM3", index: null, uuid: null, pciBusId: d[1]!.pciBusId });
    expect(new Set(d.map((x) => x.host)).size).toBe(2);
    expect(deviceProblems(d, 8)).toEqual([]);
  });

  test("4 GH200 nodes, 4 GPUs each, the same buses on every node: a bus is compared within its node", () => {
    const d = ncclRankDevices(fixture("gh200-16rank-allreduce-wrong-nonzero-v2.17.9.txt"))!;
    expect(d.map((x) => `${x.host} ${x.pciBusId}`).slice(0, 5)).toEqual([
      "gpu-1-43 0009:01:00",
      "gpu-1-43 0019:01:00",
      "gpu-1-43 0029:01:00",
      "gpu-1-43 0039:01:00",
      "gpu-1-47 0009:01:00",
    ]);
    expect(deviceProblems(d, 4)).toEqual([]);
    // the same run judged as 8 GPUs per node: each node short by 4, named
    expect(deviceProblems(d, 8)[0]).toBe("gpu-1-43: 4 GPUs measured (ranks 0, 1, 2, 3), fewer than the suite's gpusPerNode 8: the other GPUs of gpu-1-43 were never measured");
  });

  test("gpucheck's gloo loop on 2 CPU ranks: in a GPU suite, an error naming each rank", () => {
    const d = ncclRankDevices(fixture("gpucheck-workload-gloo-2rank-cpu.txt"))!;
    expect(d.map((x) => [x.rank, x.host, x.type, x.name])).toEqual([
      [0, "vm", "cpu", "Intel(R) Xeon(R) Processor"],
      [1, "vm", "cpu", "Intel(R) Xeon(R) Processor"],
    ]);
    expect(deviceProblems(d, 8).map((p) => p.split(":")[0])).toEqual([
      "rank 0 on vm ran on the CPU (Intel(R) Xeon(R) Processor), not a GPU, while the suite asks for 8 GPUs per node",
      "rank 1 on vm ran on the CPU (Intel(R) Xeon(R) Processor), not a GPU, while the suite asks for 8 GPUs per node",
    ]);
    expect(deviceProblems(d, 0)).toEqual([]);
  });

  test("nccl-tests 2.x before the Group field, and a log with no rank lines", () => {
    const d = ncclRankDevices(fixture("v100-4gpu-legacy-nccl2.4.txt"))!;
    expect(d.map((x) => x.pciBusId)).toEqual(["0x3d", "0x3e", "0x3f", "0x40"]);
    expect(ncclRankDevices(fixture("h100-p5-8rank-allreduce-mpirun-tag-output.txt"))).toBeUndefined();
  });
});
