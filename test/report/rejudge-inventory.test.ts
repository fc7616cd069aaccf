// `gpucheck judge` recounts an inventory against the judging suite's idea of a node (its compute
// HCAs, link count, pins): the saved raw inventory is enough, nothing reruns.
import { expect, test } from "bun:test";
import { rejudgeResults } from "../../lib/assess/rejudge.ts";
import { judgeUnit } from "../../lib/assess/judge.ts";
import { inventoryMeasurement } from "../../lib/kinds/inventory/parse.ts";
import type { ResultsFile } from "../../lib/core/types.ts";
import { FIXTURES } from "../fixtures/results/fixtures.ts";
import { load } from "../load/_load.ts";
import { node } from "../parsers/_inventory.ts";

test("naming the compute HCAs in the judging suite recounts the saved ports", async () => {
  const inv = node({ q: "nvidia-smi-q-h100-8gpu-565.57.01.txt", nvlink: "nvlink-s-h100-1gpu-590.48.01-tab-indent.txt", ibstat: "ibstat-h100-cx7-ndr-ib-with-eth-ports-down.txt" });
  const measurement = inventoryMeasurement(`GPUCHECK_RESULT ${JSON.stringify(inv)}\n`);
  expect(measurement.metrics.ib_ports_active).toBe(8);
  const base = FIXTURES.passing() as ResultsFile;
  const unit = { ...base.tests[0]!.units[0]!, unit: "gpu01", hosts: ["gpu01"], measurement, verdict: judgeUnit([], { status: "completed", measurement }) };
  const saved: ResultsFile = { ...base, tests: [{ ...base.tests[0]!, name: "inv", kind: "inventory", perNode: true, expect: [], units: [unit], outcome: "passed" }] };
  const suite = await load({
    "strict.yaml": "name: strict\ntests:\n  - name: inv\n    kind: inventory\n    inventory: { hcas: [mlx5_0, mlx5_2] }\n    expect:\n      ib_ports_active: { min: 2 }\n",
  });
  const { results } = rejudgeResults(saved, suite);
  const u = results.tests[0]!.units[0]!;
  expect(u.measurement!.metrics.ib_ports_active).toBe(1);
  expect(u.verdict.outcome).toBe("failed");
  expect(u.verdict.reason).toBe("ib_ports_active 1 < 2 expected (-50%): compute HCA mlx5_2 (link layer Ethernet, not InfiniBand) [compute HCAs mlx5_0,mlx5_2]");
});
