// lib/kinds/inventory/parse.ts on the inventory command's output as a whole: the line it reads, and what
// it says when the line is missing or the node reported nothing it can count.
import { describe, expect, test } from "bun:test";
import { inventoryMeasurement } from "../../lib/kinds/inventory/parse.ts";

describe("inventoryMeasurement", () => {
  test("no RESULT line: a ParseError naming the line", () => {
    expect(() => inventoryMeasurement('GPUCHECK_INVENTORY {"hostname":"gpu01"}\n')).toThrow("no GPUCHECK_RESULT line in the inventory output");
  });

  test("a RESULT line cut short is not data", () => {
    expect(() => inventoryMeasurement('GPUCHECK_RESULT {"hostname":"gpu01","gpus":[')).toThrow("no GPUCHECK_RESULT line in the inventory output");
  });

  test("a node whose tools could not be read: each metric null with the reason, none counted as 0", () => {
    const m = inventoryMeasurement(
      `GPUCHECK_RESULT ${JSON.stringify({ hostname: "gpu01", gpus: [], ib_ports: null, xid_events: null, unmeasured: { gpus: "nvidia-smi not found", ib_ports: "ibstat is not installed", xid_events: "the kernel log could not be read (dmesg: Operation not permitted)" } })}\n`,
    );
    expect(m.metrics.ib_ports_active).toBeNull();
    expect(m.metrics.xid_events).toBeNull();
    expect(m.unmeasured?.ib_ports_active).toContain("ibstat is not installed");
    expect(m.unmeasured?.xid_events).toContain("dmesg: Operation not permitted");
    expect(m.unmeasured?.gpu_count).toContain("nvidia-smi not found");
  });
});
