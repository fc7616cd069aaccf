// lib/assess/measure.ts: a unit's output → Measurement through the kind registry, with the telemetry's
// metrics added under the test's own.
import { describe, expect, test } from "bun:test";
import { measure, measureFleet, remeasure } from "../lib/assess/measure.ts";
import type { Measurement, TelemetrySummary } from "../lib/core/types.ts";

const TABLE = [
  "# Collective test starting: all_reduce_perf",
  "#  Rank  0 Group  0 Pid   1 on     gpu01 device  0 [0x18] NVIDIA H100 80GB HBM3",
  "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong",
  "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)",
  "  1073741824     268435456     float     sum      -1   5000.0  214.75  375.81      0   4990.0  215.18  376.56      0",
  "# Out of bounds values : 0 OK",
  "# Avg bus bandwidth    : 376.185",
  "",
].join("\n");

const telemetry = (samples: number): TelemetrySummary => ({
  samples,
  maxTempC: 70,
  maxPowerW: 650,
  meanUtilPct: 99,
  throttleReasons: [],
  xids: [],
  metrics: { gpu_temp_max: 70, xid_events: 0 },
  unmeasured: samples ? {} : { ib_port_errors: "no /sys/class/infiniband" },
});

describe("measure", () => {
  test("collective: the table's metrics, complete when the footer was reached", () => {
    const m = measure("collective", TABLE);
    expect(m.metrics.busbw).toBe(376.56);
    expect(m.metrics.complete).toBe(1);
  });

  test("collective: no result rows, with or without a failure nccl-tests printed", () => {
    expect(() => measure("collective", "# nThread 1 nGpus 1\n")).toThrow("no nccl-tests result rows in the output");
    expect(() => measure("collective", "gpu01: Test NCCL failure common.cu:392 'unhandled system error'\n")).toThrow(
      "no results: Test NCCL failure common.cu:392 'unhandled system error'",
    );
  });

  test("collective: no NCCL account in the logs is unmeasured transport, with the reason", () => {
    const m = measure("collective", TABLE, undefined, [TABLE]);
    expect(m.transport).toBeUndefined();
    expect(m.unmeasured?.transport).toBe(
      "no NCCL INFO lines in the rank logs: the workload did not capture NCCL's debug output (impl or version without capture) and NCCL_DEBUG was not INFO",
    );
  });

  test("train and inventory: the parser's message when the output has no result", () => {
    expect(() => measure("train", "")).toThrow("no GPUCHECK_RESULT line in rank 0's output: the training did not finish");
    expect(() => measure("inventory", "")).toThrow("no GPUCHECK_RESULT line in the inventory output");
  });

  test("telemetry metrics are added, the test's own win", () => {
    const m = measure("train", `GPUCHECK_RESULT {"samples_per_s": 100}\n`, telemetry(4));
    expect(m.metrics.samples_per_s).toBe(100);
    expect(m.metrics.gpu_temp_max).toBe(70);
  });

  test("telemetry without a sample: no values, and each telemetry metric says why", () => {
    const m = measure("train", `GPUCHECK_RESULT {"samples_per_s": 100}\n`, telemetry(0));
    expect(m.metrics.gpu_temp_max).toBeUndefined();
    expect(m.unmeasured?.ib_port_errors).toBe("no telemetry sample in the output (the sampler runs beside local rank 0 of each node)");
  });

  test("fleet and recount steps: only kinds that have them change anything", () => {
    const ms: Array<Measurement | null> = [{ metrics: { busbw: 1 } }, null];
    measureFleet("collective", ms, undefined);
    expect(ms).toEqual([{ metrics: { busbw: 1 } }, null]);
    expect(remeasure("train", ms, undefined)).toBe(ms);
  });
});
