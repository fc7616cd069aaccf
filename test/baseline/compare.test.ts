// The firmware and software baseline (issue 28 item 2) on real captured inventories: an HGX H100's
// nvidia-smi -q (565.57.01) and ibstat (ConnectX-7 NDR), read by the workload's own parsers
// (test/parsers/_inventory.ts; sources in workload/tests/fixtures). A baseline captured from that node
// matches it; one differing in one field names every part that differs, with both values, and the
// remediation its kind of field calls for.
import { describe, expect, test } from "bun:test";
import { judgeUnit } from "../../lib/assess/judge.ts";
import { baselineYaml, captureBaseline } from "../../lib/baseline/capture.ts";
import { inventoryMeasurement } from "../../lib/kinds/inventory/parse.ts";
import type { Expectation, NodeInventory } from "../../lib/core/types.ts";
import { node } from "../parsers/_inventory.ts";

const H100 = { q: "nvidia-smi-q-h100-8gpu-565.57.01.txt", nvlink: "nvlink-s-h100-1gpu-590.48.01-tab-indent.txt", ibstat: "ibstat-h100-cx7-ndr-ib-with-eth-ports-down.txt" };
const HCAS = ["mlx5_0", "mlx5_3", "mlx5_4", "mlx5_5", "mlx5_6", "mlx5_9", "mlx5_10", "mlx5_11"];
const EXPECT: Expectation[] = [{ metric: "baseline_mismatches", unit: "count", max: 0, text: "{ max: 0 }" }];
// python3 reads the captures: slow on a loaded machine, so a longer limit than bun's 5 s
const SLOW = 60_000;

let golden: NodeInventory | undefined;
const inventory = () => (golden ??= node({ ...H100, hostname: "gpu01" }));
const judged = (inv: NodeInventory, baseline: Record<string, string>) =>
  judgeUnit(EXPECT, { status: "completed", kind: "inventory", measurement: inventoryMeasurement(`GPUCHECK_RESULT ${JSON.stringify(inv)}\n`, { baseline, hcas: HCAS }) });

describe("baseline capture from a golden node", () => {
  test(
    "the H100's driver, CUDA, VBIOS and HCA firmware are captured; what the captures do not hold is left out with why",
    () => {
      const c = captureBaseline([inventory()], undefined, "results.json");
      expect(c.node).toBe("gpu01");
      expect(c.baseline).toMatchObject({ driver: "565.57.01", cuda: "12.7" });
      expect(c.baseline.vbios).toMatch(/^96\.00\./);
      expect(c.baseline.nic_firmware).toMatch(/^28\./);
      // ibstat has no PSID; the capture has no kernel, OFED, Fabric Manager or DCGM
      expect(Object.keys(c.left).sort()).toEqual(["dcgm", "fabric_manager", "kernel", "nccl", "nic_psid", "ofed"]);
      expect(baselineYaml(c, "results.json")).toContain(`baseline:\n  driver: "565.57.01"\n`);
    },
    SLOW,
  );

  test("a run of several nodes needs --node; an unknown node is named with those there are", () => {
    const a = { hostname: "a", gpus: [] } as NodeInventory;
    const b = { hostname: "b", gpus: [] } as NodeInventory;
    expect(() => captureBaseline([a, b], undefined, "r/results.json")).toThrow("r/results.json: the run has 2 nodes (a, b): name the golden one with --node");
    expect(() => captureBaseline([a, b], "c", "r/results.json")).toThrow('r/results.json: no inventory of node "c" in this run (it has a, b): name one with --node');
    expect(() => captureBaseline([], undefined, "r/results.json")).toThrow("r/results.json: the run holds no node inventory to capture a baseline from");
  });
});

describe("every node against the baseline", () => {
  test(
    "the golden node against its own baseline: passed",
    () => {
      const c = captureBaseline([inventory()], undefined, "results.json");
      const v = judged(inventory(), c.baseline);
      expect(v.outcome).toBe("passed");
      expect(v.checks[0]!.message).toBe("baseline_mismatches 0 ≤ 0 expected");
    },
    SLOW,
  );

  test(
    "a baseline one VBIOS ahead: every GPU named with both versions; reflash firmware",
    () => {
      const c = captureBaseline([inventory()], undefined, "results.json");
      const v = judged(inventory(), { ...c.baseline, vbios: "96.00.99.00.01" });
      expect(v.outcome).toBe("failed");
      const check = v.checks[0]!;
      expect(check.measured).toBe(8);
      expect(check.message).toContain(`gpu01 GPU 0 (00000000:18:00.0, serial `);
      expect(check.message).toContain(`: vbios ${c.baseline.vbios} ≠ 96.00.99.00.01 (the baseline)`);
      expect(check.remediation?.class).toBe("reflash-firmware");
    },
    SLOW,
  );

  test(
    "another driver in the baseline: the node named once with both versions; reinstall the driver",
    () => {
      const c = captureBaseline([inventory()], undefined, "results.json");
      const v = judged(inventory(), { ...c.baseline, driver: "570.86.15" });
      const check = v.checks[0]!;
      expect(check.measured).toBe(1);
      expect(check.message).toContain("gpu01: driver 565.57.01 ≠ 570.86.15 (the baseline)");
      expect(check.remediation?.class).toBe("reinstall-driver");
    },
    SLOW,
  );

  test(
    "a baseline field the node cannot show (PSID through ibstat) is unmeasured, never a match",
    () => {
      const v = judged(inventory(), { nic_psid: "MT_0000000838" });
      expect(v.outcome).toBe("error");
      expect(v.reason).toStartWith("baseline_mismatches unmeasured: baseline versions could not be read: nic_psid of gpu01 mlx5_0 port 1");
    },
    SLOW,
  );
});
