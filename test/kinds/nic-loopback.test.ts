// nic-loopback (lib/kinds/nic-loopback/): each HCA's ib_write_bw loopback with GPUDirect, judged
// against h100-8x's 380 Gb/s floor (Azure's check_ib_bw_gdr). The client outputs are the real
// captures in test/fixtures/perftest/ (README there: a GPUDirect run at 140.40 Gb/s at 8 MiB, and a
// run that stops at 64 KiB with "Completion with error"), placed in the workload's result shape.
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { judgeUnit } from "../../lib/assess/judge.ts";
import { nicLoopbackArgs, resolveNicLoopback } from "../../lib/kinds/nic-loopback/params.ts";
import { nicLoopbackMeasurement } from "../../lib/kinds/nic-loopback/parse.ts";
import { loadSuite } from "../../lib/load/mod.ts";

const capture = (name: string) => readFileSync(join(import.meta.dir, "../fixtures/perftest", name), "utf8");
const GDR_140 = capture("ib_write_bw-gdr-dmabuf-h200-roce-gke.txt");
const STOPPED = capture("ib_write_bw-completion-error-roce-gke.txt");
const CMD = "numactl -N 0 -m 0 ib_write_bw -p 18510 -s 8388608 -x 0 -F --report_gbits --perform_warm_up --use_cuda=3 -d mlx5_3 -i 1 127.0.0.1";
const hca = (device: string, extra: object) => ({
  device,
  port: 1,
  rate_gbps: 400,
  state: "ACTIVE",
  link_layer: "Ethernet",
  port_tcp: 18510,
  gpu: 3,
  gpu_source: "nvidia-smi topo -m: the GPU nearest mlx5_3",
  numa_node: 0,
  ...extra,
});
const result = (hcas: object[], noIb: string | null = null) => `GPUCHECK_RESULT ${JSON.stringify({ host: "gpu01", size: 8388608, no_ib: noIb, hcas })}\n`;

async function floor() {
  const suite = await loadSuite("h100-8x");
  return suite.tests.find((t) => t.name === "nic-loopback")!;
}

describe("nic-loopback on real ib_write_bw captures", () => {
  test("the GPUDirect run at 140.40 Gb/s is the HCA's figure and fails h100-8x's 380 Gb/s floor, naming the HCA", async () => {
    const m = nicLoopbackMeasurement(result([hca("mlx5_3", { client: { command: CMD, rc: 0, output: GDR_140 } })]));
    expect(m.metrics.nic_loopback_gbps_min).toBe(140.4);
    expect(m.details!.nic_loopback_gbps_min).toBe(
      "gpu01 mlx5_3 port 1 (400 Gb/s, NUMA node 0, GPU 3): 140.4 Gb/s average, peak 140.6, 8388608-byte writes looped back on the HCA, GPUDirect from GPU 3 (nvidia-smi topo -m: the GPU nearest mlx5_3)",
    );
    expect(m.components!.map((c) => [c.part, c.metrics])).toEqual([[{ type: "nic", host: "gpu01", name: "mlx5_3", index: 3 }, { nic_loopback_gbps: 140.4 }]]);
    const spec = await floor();
    const v = judgeUnit(spec.expect, { status: "completed", measurement: m, gpusPerNode: spec.gpusPerNode });
    expect(v.outcome).toBe("failed");
    const check = v.checks.find((c) => "metric" in c && c.metric === "nic_loopback_gbps_min")!;
    expect(check).toMatchObject({ ok: false, measured: 140.4, expected: 380 });
    expect(v.reason).toStartWith("nic_loopback_gbps_min 140.4 Gb/s < 380 Gb/s expected (-63%): gpu01 mlx5_3 port 1 (400 Gb/s, NUMA node 0, GPU 3): 140.4 Gb/s average");
  });

  test("a run that stops at 64 KiB with a completion error is unmeasured with perftest's words, never its 381 Gb/s row", async () => {
    const m = nicLoopbackMeasurement(result([hca("mlx5_3", { client: { command: CMD, rc: 1, output: STOPPED } })]));
    expect(m.metrics.nic_loopback_gbps_min).toBeNull();
    expect(m.unmeasured!.nic_loopback_gbps_min).toBe(
      "gpu01 mlx5_3 port 1 (400 Gb/s, NUMA node 0, GPU 3): ib_write_bw's last result row is for 65536-byte writes (381.41 Gb/s), not the 8388608 asked: the run stopped early with exit code 1; " +
        "it said: Completion with error at client | Failed status 10: wr_id 0 syndrom 0x88 | Failed to complete run_iter_bw function successfully",
    );
    const spec = await floor();
    const v = judgeUnit(spec.expect, { status: "completed", measurement: m, gpusPerNode: spec.gpusPerNode });
    expect(v.outcome).toBe("error");
  });

  test("no InfiniBand port, a missing tool, a server that never listened: each HCA's reason, an error, never a pass", async () => {
    const spec = await floor();
    const none = nicLoopbackMeasurement(result([], "no InfiniBand device (/sys/class/infiniband is empty)"));
    expect(none.unmeasured!.nic_loopback_gbps_min).toBe("gpu01: no InfiniBand device (/sys/class/infiniband is empty)");
    expect(judgeUnit(spec.expect, { status: "completed", measurement: none, gpusPerNode: 8 }).outcome).toBe("error");
    const why = "ib_write_bw not found on PATH on gpu01: install perftest (Debian and RHEL: perftest; MLNX_OFED and DOCA ship it)";
    const never = "the ib_write_bw server on gpu01 for mlx5_4 did not listen on port 18511 within 15 s";
    const m = nicLoopbackMeasurement(result([hca("mlx5_3", { why }), hca("mlx5_4", { why: never, numa_node: 1 })]));
    expect(m.unmeasured!.nic_loopback_gbps_min).toBe(`gpu01 mlx5_3 port 1 (400 Gb/s, NUMA node 0, GPU 3): ${why}; gpu01 mlx5_4 port 1 (400 Gb/s, NUMA node 1, GPU 3): ${never}`);
    expect(m.components!.map((c) => c.unmeasured)).toEqual([{ nic_loopback_gbps: why }, { nic_loopback_gbps: never }]);
    expect(judgeUnit(spec.expect, { status: "completed", measurement: m, gpusPerNode: 8 }).outcome).toBe("error");
  });

  test("the workload command carries Azure's message size and the suite's HCAs", async () => {
    expect(nicLoopbackArgs(resolveNicLoopback(undefined))).toEqual(["nic-loopback", "--size", "8388608", "--timeout", "60"]);
    const spec = await floor();
    expect(nicLoopbackArgs(spec["nic-loopback"])).toEqual([
      "nic-loopback",
      "--hcas",
      "mlx5_0,mlx5_3,mlx5_4,mlx5_5,mlx5_6,mlx5_9,mlx5_10,mlx5_11",
      "--size",
      "8388608",
      "--timeout",
      "60",
    ]);
    const h200 = (await loadSuite("h200-8x")).tests.find((t) => t.name === "nic-loopback")!;
    expect(h200.expect.find((e) => e.metric === "nic_loopback_gbps_min")).toMatchObject({ min: 360 });
  });
});
