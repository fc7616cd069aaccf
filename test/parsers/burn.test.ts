// lib/kinds/burn/parse.ts and burn-clock.ts on their own: the burn command's GPUCHECK_RESULT → stragglers
// by CV > 5 % or max/avg > 1.5, the slowdown from the first to the last span, each rank as a
// component, and the clock events per minute the telemetry samples show; and what each says when its
// input is missing. The GPU results and samples are written here in the workload's shape (no GPU ran
// them); the reasons hw_slowdown + hw_power_brake_slowdown are those the captured H100 in
// workload/tests/fixtures/nvidia-smi-q-h100-8gpu-535.161.08-hw-slowdown.txt reports.
import { describe, expect, test } from "bun:test";
import { clockEventRate } from "../../lib/kinds/burn/parse-clock.ts";
import { burnMeasurement } from "../../lib/kinds/burn/parse.ts";
import { GPU_LOAD_METRICS } from "../../lib/kinds/burn/parse-gpu.ts";

const GPU0 = ["GPU-5d2a9c3e-1f0b-4c47-a3c1-9d6a0f1b2c3d", "00000000:18:00.0"] as const;
const GPU1 = ["GPU-8b1e7f20-44a1-4e2b-9b55-0c7d3e9a1f42", "00000000:2A:00.0"] as const;
const run = (n: number, mean: number, std: number, max: number) => ({ n, mean_s: mean, std_s: std, max_s: max });
const rates = (iterations: number, tflops: number | null) => ({ iterations, gemm_tflops: tflops, copy_gbps: tflops === null ? null : 2900 });
interface Shape {
  mean?: number;
  std?: number;
  max?: number;
  n?: number;
  first?: number | null;
  last?: number | null;
  unmeasured?: string;
}
// a rank's checksum account as burn.py's Checksums.result() gives it: 545 checks in a 10-minute run
const account = (over: object = {}) => ({
  n: 4096,
  dtype: "bf16",
  every: 100,
  checks: 545,
  mismatches: 0,
  self_mismatches: 0,
  cross_mismatches: 0,
  no_majority: 0,
  mismatch_at_s: [],
  ...over,
});
const gpu = (rank: number, [uuid, pci]: readonly [string, string], s: Shape = {}) => {
  const { mean = 0.0022, std = 0.00002, max = 0.0025, n = 50000, first = 700, last = 690 } = s;
  return {
    rank,
    local_rank: rank,
    host: "gpu01",
    device: { type: "cuda", name: "NVIDIA H100 80GB HBM3", cuda_index: rank, capability: "9.0", index: rank, uuid, pci_bus_id: pci, unnamed: null },
    gemm_dtype: "bf16",
    ...(s.unmeasured && { unmeasured: s.unmeasured }),
    elapsed_s: 120,
    iteration: run(n, mean, std, max),
    gemm: run(n, 0.0015, 0.00001, 0.0017),
    copy: run(n, 0.0007, 0.00001, 0.0008),
    allreduce: run(n, 0.001, 0.0001, 0.002),
    ...rates(n, 695),
    window_s: 10,
    windows: [],
    edges: { span_s: 60, first: rates(25000, first), last: rates(25000, last) },
    raw_s: [],
    raw_cap: 1000,
    raw_truncated: true,
    checksum: account(),
  };
};
const result = (ranks: object[]) => ({
  world_size: ranks.length,
  backend: "nccl",
  torch: "2.5.1",
  duration_s: 120,
  gemm_n: 8192,
  copy_bytes: 1 << 30,
  allreduce_bytes: 1 << 28,
  warmup_iters: 3,
  checksum_every: 100,
  ranks,
});
const line = (o: unknown) => `[gpu01 rank 0] GPUCHECK_RESULT ${JSON.stringify(o)}\n`;
const NAME0 = `gpu01 GPU 0 (${GPU0.join(", ")})`;
const NAME1 = `gpu01 GPU 1 (${GPU1.join(", ")})`;

describe("burnMeasurement", () => {
  test("two steady GPUs: no straggler, the highest CV and the worst slowdown named, each GPU a component", () => {
    const m = burnMeasurement(line(result([gpu(0, GPU0), gpu(1, GPU1, { first: 700, last: 630 })])));
    expect(m.metrics.burn_stragglers).toBe(0);
    expect(m.details!.burn_stragglers).toBe("none (CV > 5 % or max/avg > 1.5)");
    expect(m.metrics.burn_iter_cv_max).toBeCloseTo(0.909, 3);
    expect(m.metrics.burn_slowdown_pct).toBeCloseTo(10, 9);
    expect(m.details!.burn_slowdown_pct).toBe(`${NAME1}: 10.0 % slower; ${NAME0}: 1.4 % slower`);
    expect(m.components![1]).toEqual({
      part: { type: "gpu", host: "gpu01", rank: 1, index: 1, uuid: GPU1[0], pciBusId: GPU1[1], name: "NVIDIA H100 80GB HBM3" },
      metrics: {
        burn_iter_cv: m.metrics.burn_iter_cv_max!,
        burn_iter_max_avg: 0.0025 / 0.0022,
        burn_gemm_tflops: 695,
        burn_copy_gbps: 2900,
        burn_gemm_slowdown_pct: m.metrics.burn_slowdown_pct!,
        burn_gpu_checksum_mismatches: 0,
        ...Object.fromEntries(GPU_LOAD_METRICS.map((k) => [k, null])),
      },
      // no telemetry in this output: the GPU's own readings are unmeasured, never passed
      unmeasured: Object.fromEntries(GPU_LOAD_METRICS.map((k) => [k, "no telemetry sample in the output (the sampler runs beside local rank 0 of each node)"])),
    });
    expect(m.metrics.burn_checksum_mismatches).toBe(0);
    expect(m.details!.burn_checksum_mismatches).toBe("none: every rank's product of identical seeded inputs, every 100 iterations, matched its own first and its model's majority");
  });

  test("a GPU whose product changed under load is counted at each check and named with when; the others are 0", () => {
    const bad = { ...gpu(1, GPU1), checksum: account({ mismatches: 2, self_mismatches: 2, cross_mismatches: 2, mismatch_at_s: [212.4, 498.031] }) };
    const m = burnMeasurement(line(result([gpu(0, GPU0), bad])));
    expect(m.metrics.burn_checksum_mismatches).toBe(2);
    expect(m.details!.burn_checksum_mismatches).toBe(`${NAME1}: 2 of 545 checks differed (2 from its own first product, 2 from its model's majority) (at 212.4 s, 498.031 s)`);
    expect(m.components!.map((c) => c.metrics.burn_gpu_checksum_mismatches)).toEqual([0, 2]);
  });

  test("a rank with no checksum account leaves the count unmeasured, naming it", () => {
    const old = gpu(1, GPU1) as Record<string, unknown>;
    delete old.checksum;
    const m = burnMeasurement(line(result([gpu(0, GPU0), old])));
    expect(m.metrics.burn_checksum_mismatches).toBeNull();
    expect(m.unmeasured!.burn_checksum_mismatches).toBe(`${NAME1}: the rank reported no checksum account`);
    expect(m.components![1]!.unmeasured!.burn_gpu_checksum_mismatches).toBe("the rank reported no checksum account");
  });

  test("each GPU's clock, temperature, power and clock event reasons under load, from its own telemetry readings", () => {
    // GPU 0 reads as the loaded H100 of the 590.48.01 capture (node-samples query-gpu-csv-h100-590.48.01-load.txt:
    // 100 %, 1980 MHz, 631.95 W, 59 C, no active reason); GPU 1 is held down by HW slowdown and power brake
    // (the reasons of the captured H100 in nvidia-smi-q-h100-8gpu-535.161.08-hw-slowdown.txt) and runs hot
    const g0 = { index: 0, pci_bus_id: GPU0[1], util_pct: 100, sm_clock_mhz: 1980, power_w: 631.95, temp_c: 59, throttle_reasons: [] };
    const g1 = (clock: number, temp: number, reasons: string[]) => ({
      index: 1,
      pci_bus_id: GPU1[1],
      util_pct: 100,
      sm_clock_mhz: clock,
      power_w: 410,
      temp_c: temp,
      throttle_reasons: reasons,
    });
    const idle = { ...g0, util_pct: 0, sm_clock_mhz: 345, power_w: 70 };
    const text =
      line(result([gpu(0, GPU0), gpu(1, GPU1)])) +
      sample(0, "gpu01", [idle, g1(1980, 60, [])]) +
      sample(10, "gpu01", [g0, g1(1500, 80, ["hw_slowdown", "hw_power_brake_slowdown"])]) +
      sample(20, "gpu01", [g0, g1(1410, 88, ["sw_thermal_slowdown"])]);
    const m = burnMeasurement(text, [text]);
    const pick = (i: number) => Object.fromEntries(GPU_LOAD_METRICS.map((k) => [k, m.components![i]!.metrics[k]]));
    expect(pick(0)).toEqual({ burn_gpu_sm_clock_mhz: 1980, burn_gpu_temp_max_c: 59, burn_gpu_power_mean_w: 631.95, burn_gpu_throttle_hw: 0, burn_gpu_throttle_sw_thermal: 0 });
    expect(pick(1)).toEqual({ burn_gpu_sm_clock_mhz: 1500, burn_gpu_temp_max_c: 88, burn_gpu_power_mean_w: 410, burn_gpu_throttle_hw: 2, burn_gpu_throttle_sw_thermal: 1 });
    expect(m.components![0]!.unmeasured).toEqual({});
  });

  test("a CPU rank, a GPU no sample read, reasons unread: null with the reason, never 0", () => {
    const cpu = { ...gpu(0, GPU0), device: { type: "cpu", name: "AMD EPYC 7763" } };
    const other = { index: 5, pci_bus_id: "00000000:9A:00.0", util_pct: 100, sm_clock_mhz: 1980, power_w: 600, temp_c: 60, throttle_reasons: [] };
    const unread = { index: 1, pci_bus_id: GPU1[1], util_pct: 100, sm_clock_mhz: 1980, power_w: 600, temp_c: 60, throttle_reasons: null };
    const text = line(result([cpu, gpu(1, GPU1)])) + sample(0, "gpu01", [other, unread]);
    const m = burnMeasurement(text, [text]);
    expect(m.components![0]!.unmeasured!.burn_gpu_sm_clock_mhz).toBe("a CPU rank: no GPU clock, temperature, power or clock event reason to read");
    expect(m.components![1]!.metrics.burn_gpu_sm_clock_mhz).toBe(1980);
    expect(m.components![1]!.unmeasured!.burn_gpu_throttle_hw).toBe(`clock event reasons of ${NAME1} unreadable in 1 of 1 samples`);
    const missing = line(result([gpu(0, GPU0)])) + sample(0, "gpu01", [other]);
    expect(burnMeasurement(missing, [missing]).components![0]!.unmeasured!.burn_gpu_temp_max_c).toBe(`no telemetry sample read ${NAME0}`);
  });

  test("a rank whose times vary by more than 5 %, and one whose slowest iteration is over 1.5 × its mean, are both named", () => {
    const m = burnMeasurement(line(result([gpu(0, GPU0, { std: 0.00022 }), gpu(1, GPU1, { max: 0.004 })])));
    expect(m.metrics.burn_stragglers).toBe(2);
    expect(m.details!.burn_stragglers).toBe(
      `CV > 5 % or max/avg > 1.5: ${NAME0}: CV 10.0 %, max/avg 1.14 over 50000 iterations (mean 2.20 ms, max 2.50 ms), GEMM 700.0 → 690.0 TFLOP/s first vs last 60 s; ` +
        `${NAME1}: CV 0.9 %, max/avg 1.82 over 50000 iterations (mean 2.20 ms, max 4.00 ms), GEMM 700.0 → 690.0 TFLOP/s first vs last 60 s`,
    );
    expect(m.metrics.burn_iter_cv_max).toBeCloseTo(10, 9);
  });

  test("a rank that ran no iteration leaves every stability metric unmeasured with its reason, never the other rank's figures", () => {
    const why = "burn buffers did not fit: CUDA out of memory. Tried to allocate 1.00 GiB";
    const empty = gpu(1, GPU1, { unmeasured: why, n: 0, first: null, last: null });
    const m = burnMeasurement(line(result([gpu(0, GPU0), { ...empty, iteration: { n: 0, mean_s: null, std_s: null, max_s: null }, gemm_tflops: null }])));
    for (const metric of ["burn_stragglers", "burn_iter_cv_max", "burn_slowdown_pct"]) {
      expect(m.metrics[metric]).toBeNull();
      expect(m.unmeasured![metric]).toBe(`${NAME1}: ${why}`);
    }
    const noSample = "no telemetry sample in the output (the sampler runs beside local rank 0 of each node)";
    expect(m.components![1]!.unmeasured).toEqual({
      burn_iter_cv: why,
      burn_iter_max_avg: why,
      burn_gemm_tflops: why,
      burn_gemm_slowdown_pct: why,
      burn_gpu_checksum_mismatches: why,
      ...Object.fromEntries(GPU_LOAD_METRICS.map((k) => [k, noSample])),
    });
    expect(m.unmeasured!.burn_checksum_mismatches).toBe(`${NAME1}: ${why}`);
  });

  test("a single timed iteration has no variation to measure", () => {
    const m = burnMeasurement(line(result([gpu(0, GPU0, { n: 1 })])));
    expect(m.metrics.burn_iter_cv_max).toBeNull();
    expect(m.unmeasured!.burn_iter_cv_max).toBe(`${NAME0}: 1 timed iteration: no variation to measure`);
  });

  test("no iteration in the last span: the slowdown is unmeasured, saying which span was empty", () => {
    const m = burnMeasurement(line(result([gpu(0, GPU0, { last: null })])));
    expect(m.metrics.burn_slowdown_pct).toBeNull();
    expect(m.unmeasured!.burn_slowdown_pct).toBe(`${NAME0}: no iteration in the last 60 s of the run`);
    expect(m.metrics.burn_stragglers).toBe(0);
  });

  test("a missing line or an empty rank list is a parse error that says so", () => {
    expect(() => burnMeasurement("[gpu01 rank 0] Traceback (most recent call last):\n")).toThrow("no GPUCHECK_RESULT line in rank 0's output: the burn run did not finish");
    expect(() => burnMeasurement(line(result([])))).toThrow("the burn result lists no ranks");
  });
});

const sample = (t: number, host: string, gpus: object[], unmeasured?: object) =>
  `[${host} rank 0] GPUCHECK_TELEMETRY ${JSON.stringify({ t, host, gpus, ...(unmeasured && { unmeasured }) })}\n`;
const reading = (index: number, pci: string, reasons: string[] | null) => ({ index, pci_bus_id: pci, util_pct: 100, sm_clock_mhz: 1980, throttle_reasons: reasons });

describe("clockEventRate", () => {
  test("a reason counts once each time it becomes active; the GPU with the most per minute is the value, every GPU in the details", () => {
    const brake = ["hw_slowdown", "hw_power_brake_slowdown"];
    const text = [
      sample(1000, "gpu01", [reading(0, GPU0[1], []), reading(1, GPU1[1], ["sw_power_cap"])]),
      sample(1030, "gpu01", [reading(0, GPU0[1], brake), reading(1, GPU1[1], ["sw_power_cap"])]),
      sample(1060, "gpu01", [reading(0, GPU0[1], []), reading(1, GPU1[1], ["sw_power_cap"])]),
      sample(1090, "gpu01", [reading(0, GPU0[1], brake), reading(1, GPU1[1], [])]),
      sample(1120, "gpu01", [reading(0, GPU0[1], brake), reading(1, GPU1[1], [])]),
    ].join("");
    expect(clockEventRate([text, "[gpu01 rank 1] nothing from the sampler here\n"])).toEqual({
      value: 2,
      detail:
        "gpu01 GPU 0 (00000000:18:00.0): 2.00/min (4 in 2.0 min: hw_slowdown ×2, hw_power_brake_slowdown ×2); " +
        "gpu01 GPU 1 (00000000:2A:00.0): 0.50/min (1 in 2.0 min: sw_power_cap ×1)",
    });
  });

  test("a CPU node, reasons unread, one sample, no sample: null with the reason, never 0", () => {
    const cpu = sample(1, "vm", [], { gpus: "NVML: libnvidia-ml.so.1: cannot open shared object file; nvidia-smi not found" });
    expect(clockEventRate([cpu + cpu])).toEqual({ value: null, why: "no GPU readings (vm: NVML: libnvidia-ml.so.1: cannot open shared object file; nvidia-smi not found)" });
    const unread = sample(1, "gpu01", [reading(0, GPU0[1], null)]) + sample(2, "gpu01", [reading(0, GPU0[1], [])]);
    expect(clockEventRate([unread])).toEqual({ value: null, why: "gpu01 GPU 0 (00000000:18:00.0): clock event reasons unreadable in 1 of 2 samples" });
    expect(clockEventRate([sample(1, "gpu01", [reading(0, GPU0[1], [])])])).toEqual({ value: null, why: "the telemetry samples span no time (1 sample): no rate per minute" });
    expect(clockEventRate(["no samples\n"])).toEqual({ value: null, why: "no telemetry sample in the output (the sampler runs beside local rank 0 of each node)" });
  });

  test("the burn measurement carries the rate from every rank's log", () => {
    const logs = [line(result([gpu(0, GPU0)])) + sample(0, "gpu01", [reading(0, GPU0[1], [])]) + sample(60, "gpu01", [reading(0, GPU0[1], ["hw_slowdown"])])];
    const m = burnMeasurement(logs[0]!, logs);
    expect(m.metrics.burn_clock_events_rate).toBe(1);
    expect(m.details!.burn_clock_events_rate).toBe("gpu01 GPU 0 (00000000:18:00.0): 1.00/min (1 in 1.0 min: hw_slowdown ×1)");
  });
});
