// Telemetry health metrics: Xids split by cause, throttling split by reason, SM clocks under load,
// IB and NVLink error counter deltas — and each one unmeasured, with the node's reason, when a
// source could not be read. Samples are in the shape workload/gpucheck_workload/telemetry.py prints
// (its Python tests parse the real captures that feed them).
import { describe, expect, test } from "bun:test";
import { judgeUnit } from "../../lib/assess/judge.ts";
import { measure } from "../../lib/assess/measure.ts";
import { summariseTelemetry, telemetryMetrics } from "../../lib/parsers/telemetry.ts";
import { pciKey, telemetryHealth } from "../../lib/parsers/telemetry-health.ts";
import type { Expectation, Measurement } from "../../lib/core/types.ts";

type Obj = Record<string, unknown>;
const BUS = ["00000000:19:00.0", "00000000:3B:00.0"];
const gpu = (index: number, extra: Obj = {}) => ({ index, pci_bus_id: BUS[index], util_pct: 100, sm_clock_mhz: 1980, power_w: 690, temp_c: 70, throttle_reasons: [], ...extra });
const ib = (link_downed: number, symbol_error: number) => ({ "mlx5_0:1": { link_downed: 0, symbol_error: 0 }, "mlx5_3:1": { link_downed, symbol_error, port_rcv_errors: 4 } });
const nv = (replay: number) => ({ "0": { "0": { replay: 0, recovery: 0, crc_flit: 0, crc_data: 0 } }, "1": { "5": { replay, recovery: 0, crc_flit: 0, crc_data: 0 } } });

/** A test on one node: baseline with counters, two load samples, the final sample with counters. */
function run(over: { first?: Obj; mid?: Obj[]; last?: Obj | null } = {}): Obj[] {
  const base = { host: "n1", xids: [], xid_sources: ["nvml", "/dev/kmsg"] };
  const first = {
    ...base,
    t: 0,
    gpus: [gpu(0, { util_pct: 0, sm_clock_mhz: 345 }), gpu(1, { util_pct: 0, sm_clock_mhz: 345 })],
    counters: { ib: ib(0, 0), nvlink: nv(0) },
    ...over.first,
  };
  const mid = over.mid ?? [
    { ...base, t: 1, gpus: [gpu(0), gpu(1, { sm_clock_mhz: 1755, throttle_reasons: ["sw_power_cap"] })] },
    { ...base, t: 2, gpus: [gpu(0), gpu(1, { sm_clock_mhz: 1410, throttle_reasons: ["hw_slowdown", "hw_power_brake_slowdown"] })] },
  ];
  const last = over.last === null ? [] : [{ ...base, t: 3, gpus: [gpu(0), gpu(1)], counters: { ib: ib(1, 15), nvlink: nv(3) }, final: true, ...over.last }];
  return [first, ...mid.map((m) => ({ ...base, ...m })), ...last];
}

describe("telemetry health metrics", () => {
  test("a throttled GPU, a flapping port and NVLink replays, each named", () => {
    const h = telemetryHealth(run());
    expect(h.metrics).toEqual({
      throttle_hw: 2,
      throttle_sw_thermal: 0,
      throttle_sw_power_cap: 1,
      throttle_events: 2,
      sm_clock_min_mhz: 1755,
      xid_hardware: 0,
      xid_application: 0,
      xid_events: 0,
      ib_link_downed: 1,
      ib_port_errors: 15,
      nvlink_errors: 3,
    });
    expect(h.details).toEqual({
      throttle_hw: "n1 GPU 1 (00000000:3B:00.0): hw_slowdown in 1 of 4 samples; n1 GPU 1 (00000000:3B:00.0): hw_power_brake_slowdown in 1 of 4 samples",
      throttle_sw_power_cap: "n1 GPU 1 (00000000:3B:00.0): sw_power_cap in 1 of 4 samples",
      sm_clock_min_mhz:
        "n1 GPU 1 (00000000:3B:00.0): median 1755 MHz, min 1410 MHz over 3 loaded samples; n1 GPU 0 (00000000:19:00.0): median 1980 MHz, min 1980 MHz over 3 loaded samples",
      ib_link_downed: "n1 mlx5_3 port 1: link_downed +1",
      ib_port_errors: "n1 mlx5_3 port 1: symbol_error +15",
      nvlink_errors: "n1 GPU 1 (00000000:3B:00.0) link 5: replay +3",
    });
  });

  test("Xids from NVML and the kernel log: one per GPU and code, hardware apart from application, sources merged", () => {
    const mid = [
      {
        t: 1,
        gpus: [gpu(0), gpu(1)],
        xids: [
          { kind: "xid", code: 79, gpu: 1, pci: "00000000:3B:00.0", source: "nvml" },
          { kind: "xid", code: 13, gpu: 0, pci: "00000000:19:00.0", source: "nvml" },
        ],
      },
      // the kernel log's line for the same Xid 79 names the bus without domain width or function
      {
        t: 2,
        gpus: [gpu(0), gpu(1)],
        xids: [
          { kind: "xid", code: 79, pci: "0000:3b:00", source: "kernel log" },
          { kind: "sxid", code: 20034, pci: "0000:05:00.0", source: "kernel log" },
        ],
      },
      { t: 2.5, gpus: [gpu(0), gpu(1)], xids: [{ kind: "xid", code: 13, gpu: 0, pci: "00000000:19:00.0", source: "nvml" }] },
    ];
    const h = telemetryHealth(run({ mid }));
    expect([h.metrics.xid_hardware, h.metrics.xid_application, h.metrics.xid_events]).toEqual([1, 1, 3]);
    expect(h.details.xid_hardware).toBe("n1 GPU 1 (00000000:3B:00.0): Xid 79 ×2 (kernel log, nvml)");
    expect(h.details.xid_application).toBe("n1 GPU 0 (00000000:19:00.0): Xid 13 ×2 (nvml)");
    expect(h.details.xid_events).toContain("n1 NVSwitch (0000:05:00.0): SXid 20034 (kernel log)");
  });

  test("PCI bus ids of NVML, nvidia-smi and the kernel log meet", () => {
    expect(["00000000:3B:00.0", "0000:3b:00", "0000:3B:00.0"].map(pciKey)).toEqual(["3b:00", "3b:00", "3b:00"]);
  });

  test("no NVML and no nvidia-smi (this CPU machine): every GPU metric null with the node's reason", () => {
    const why = "NVML: libnvidia-ml.so.1: cannot open shared object file: No such file or directory; nvidia-smi not found";
    const samples = [
      {
        t: 0,
        host: "vm",
        gpus: [],
        xids: [],
        xid_sources: ["/dev/kmsg"],
        counters: { ib: null, nvlink: null },
        unmeasured: {
          gpus: why,
          ib_counters: "/sys/class/infiniband: No such file or directory (no RDMA driver loaded, or hidden in this container)",
          nvlink_errors: "nvidia-smi not found",
        },
      },
      {
        t: 1,
        host: "vm",
        gpus: [],
        xids: [],
        xid_sources: ["/dev/kmsg"],
        counters: { ib: null, nvlink: null },
        final: true,
        unmeasured: { ib_counters: "/sys/class/infiniband: No such file or directory (no RDMA driver loaded, or hidden in this container)", nvlink_errors: "nvidia-smi not found" },
      },
    ];
    const s = summariseTelemetry(samples.map((o) => `GPUCHECK_TELEMETRY ${JSON.stringify(o)}`));
    const t = telemetryMetrics(s);
    for (const m of ["gpu_temp_max", "throttle_hw", "throttle_sw_thermal", "sm_clock_min_mhz"]) {
      expect(t.metrics[m]).toBeNull();
      expect(t.unmeasured[m]).toBe(`no GPU readings (vm: ${why})`);
    }
    expect(t.unmeasured.ib_link_downed).toBe(
      "InfiniBand port counters could not be compared (vm: /sys/class/infiniband: No such file or directory (no RDMA driver loaded, or hidden in this container))",
    );
    expect(t.unmeasured.nvlink_errors).toBe("NVLink error counters could not be compared (vm: nvidia-smi not found)");
    // the kernel log was read, so the Xid watch is measured even without a GPU
    expect([t.metrics.xid_hardware, t.metrics.xid_application]).toEqual([0, 0]);
  });

  test("no Xid source for part of the test: the Xid metrics are unmeasured, never 0", () => {
    const why =
      "NVML events: NVML not loaded; kernel log: dmesg --time-format=iso timed out after 10s: run as root, as a user in the adm or systemd-journal group, or with CAP_SYSLOG";
    const mid = [{ t: 1, gpus: [gpu(0), gpu(1)], xid_sources: [], unmeasured: { xids: why } }];
    const h = telemetryHealth(run({ mid }));
    for (const m of ["xid_hardware", "xid_application", "xid_events"]) {
      expect(h.metrics[m]).toBeNull();
      expect(h.unmeasured[m]).toBe(`Xid events could not be watched (n1: ${why})`);
    }
  });

  test("clock event reasons unreadable on one GPU (nvidia-smi printed [N/A]): throttling unmeasured", () => {
    const mid = [{ t: 1, gpus: [gpu(0), gpu(1, { throttle_reasons: null })] }];
    const h = telemetryHealth(run({ mid }));
    expect(h.metrics.throttle_hw).toBeNull();
    expect(h.unmeasured.throttle_hw).toBe("n1 GPU 1 (00000000:3B:00.0): clock event reasons unreadable in 1 of 3 samples");
    expect(h.unmeasured.throttle_events).toBe(h.unmeasured.throttle_hw);
  });

  test("the workload ended before its last sample: counter deltas unmeasured", () => {
    const h = telemetryHealth(run({ last: null }));
    expect(h.unmeasured.ib_port_errors).toBe("InfiniBand port counters could not be compared (n1: no counter reading after the test (the workload ended before its last sample))");
    expect(h.unmeasured.nvlink_errors).toBe("NVLink error counters could not be compared (n1: no counter reading after the test (the workload ended before its last sample))");
  });

  test("nvidia-smi nvlink -e timed out at the end: that reason", () => {
    const h = telemetryHealth(run({ last: { counters: { ib: ib(0, 0), nvlink: null }, unmeasured: { nvlink_errors: "nvidia-smi nvlink -e timed out after 20s" } } }));
    expect(h.unmeasured.nvlink_errors).toBe("NVLink error counters could not be compared (n1: nvidia-smi nvlink -e timed out after 20s)");
    expect(h.metrics.ib_link_downed).toBe(0);
  });

  test("a counter reset during the test counts from 0", () => {
    const h = telemetryHealth(run({ first: { counters: { ib: ib(5, 100), nvlink: nv(9) } }, last: { counters: { ib: ib(2, 100), nvlink: nv(1) } } }));
    expect([h.metrics.ib_link_downed, h.metrics.ib_port_errors, h.metrics.nvlink_errors]).toEqual([2, 0, 1]);
  });

  test("GPUs never under load: no SM clock under load", () => {
    const mid = [{ t: 1, gpus: [gpu(0, { util_pct: 10 }), gpu(1, { util_pct: 5 })] }];
    const h = telemetryHealth(run({ mid, last: { gpus: [gpu(0, { util_pct: 0 }), gpu(1, { util_pct: 0 })] } }));
    expect(h.unmeasured.sm_clock_min_mhz).toBe("no sample with a GPU at ≥ 80 % utilisation and an SM clock");
  });
});

describe("judging a telemetry metric", () => {
  const e = (metric: string): Expectation => ({ metric, unit: "count", max: 0, text: `${metric}: { max: 0 }` });
  const measured = (samples: Obj[]): Measurement =>
    measure("train", 'GPUCHECK_RESULT {"samples_per_s": 100, "steps": 10}', summariseTelemetry(samples.map((o) => `GPUCHECK_TELEMETRY ${JSON.stringify(o)}`)));

  test("unmeasured is an error with the reason, not a pass", () => {
    const m = measured(
      run({ mid: [{ t: 1, gpus: [gpu(0), gpu(1)], xid_sources: [], unmeasured: { xids: "NVML events: NVML not loaded; kernel log: /dev/kmsg: Operation not permitted" } }] }),
    );
    const v = judgeUnit([e("xid_hardware")], { status: "done", measurement: m } as never);
    expect(v.outcome).toBe("error");
    expect(v.checks[0]!.message).toBe(
      "xid_hardware unmeasured: Xid events could not be watched (n1: NVML events: NVML not loaded; kernel log: /dev/kmsg: Operation not permitted) (expected ≤ 0)",
    );
  });

  test("a failing check names the parts", () => {
    const v = judgeUnit([e("throttle_hw"), e("ib_link_downed"), e("nvlink_errors")], { status: "done", measurement: measured(run()) } as never);
    expect(v.outcome).toBe("failed");
    expect(v.checks.map((c) => c.message)).toEqual([
      "throttle_hw 2 > 0 expected (+2): n1 GPU 1 (00000000:3B:00.0): hw_slowdown in 1 of 4 samples; n1 GPU 1 (00000000:3B:00.0): hw_power_brake_slowdown in 1 of 4 samples",
      "ib_link_downed 1 > 0 expected (+1): n1 mlx5_3 port 1: link_downed +1",
      "nvlink_errors 3 > 0 expected (+3): n1 GPU 1 (00000000:3B:00.0) link 5: replay +3",
    ]);
  });

  test("a test with no telemetry threshold still passes on a node without GPUs", () => {
    const m = measured([
      { t: 0, host: "vm", gpus: [], xids: [], xid_sources: [], unmeasured: { gpus: "nvidia-smi not found", xids: "kernel log: /dev/kmsg: Operation not permitted" } },
    ]);
    const v = judgeUnit([{ metric: "samples_per_s", unit: "samples/s", min: 1, text: "samples_per_s: { min: 1 }" }], { status: "done", measurement: m } as never);
    expect(v.outcome).toBe("passed");
  });
});
