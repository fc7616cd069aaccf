// GPUCHECK_TELEMETRY lines → the summary thresholds read, and the series the report plots.
import { describe, expect, test } from "bun:test";
import { MAX_SERIES_POINTS, summariseTelemetry, telemetryMetrics, thinSeries } from "../../lib/parsers/telemetry.ts";

const line = (o: unknown) => `GPUCHECK_TELEMETRY ${JSON.stringify(o)}`;
const gpu = (index: number, util: number, power: number, temp: number, throttle: string[] = []) => ({
  index,
  util_pct: util,
  power_w: power,
  temp_c: temp,
  sm_clock_mhz: 1980,
  mem_used_mib: 1000,
  throttle_reasons: throttle,
});

describe("summariseTelemetry", () => {
  test("peaks, mean load, throttle reasons and Xids across every GPU of every node", () => {
    const a = [
      line({ t: 1000, host: "gpu-01", gpus: [gpu(0, 90, 650, 61), gpu(1, 100, 700, 66)], xids: [], xid_sources: ["nvml"] }),
      line({
        t: 1000.5,
        host: "gpu-01",
        gpus: [gpu(0, 80, 640, 62, ["sw_thermal_slowdown"]), gpu(1, 100, 690, 67)],
        xids: [{ xid: 79, pci: "0000:18:00.0" }],
        xid_sources: ["nvml"],
      }),
    ].join("\n");
    const b = line({ t: 1000.2, host: "gpu-02", gpus: [gpu(0, 50, 300, 83, ["hw_slowdown"])], xids: [], xid_sources: ["nvml"] });
    const s = summariseTelemetry([a, `rank noise\n${b}\n`]);
    expect(s.samples).toBe(3);
    expect([s.maxTempC, s.maxPowerW, s.meanUtilPct]).toEqual([83, 700, 84]);
    expect(s.throttleReasons).toEqual(["hw_slowdown", "sw_thermal_slowdown"]);
    expect(s.xids).toEqual(['{"xid":79,"pci":"0000:18:00.0"}']);
    // one point per sample: mean load, hottest and hungriest GPU; x from the first sample, in time order
    expect(s.series!.temp_c).toEqual(
      [
        { x: 0, y: 66 },
        { x: 0.2, y: 83 },
        { x: 0.5, y: 67 },
      ].map((p) => ({ ...p, x: expect.closeTo(p.x, 6) })),
    );
    expect(s.series!.util_pct!.map((p) => p.y)).toEqual([95, 50, 90]);
    expect(s.series!.cpu_util_pct).toBeUndefined();
    expect(telemetryMetrics(s).metrics).toMatchObject({ gpu_temp_max: 83, gpu_power_max: 700, gpu_util_mean: 84, throttle_hw: 1, throttle_sw_thermal: 1, throttle_events: 2 });
  });

  test("a node without GPUs reports CPU load only", () => {
    const s = summariseTelemetry([[0, 1, 2].map((i) => line({ t: 50 + i, host: "cpu", gpus: [], xids: [], cpu_util_pct: 10 * i })).join("\n")]);
    expect(Object.keys(s.series!)).toEqual(["cpu_util_pct"]);
    expect(s.series!.cpu_util_pct).toEqual([
      { x: 0, y: 0 },
      { x: 1, y: 10 },
      { x: 2, y: 20 },
    ]);
    expect([s.maxTempC, s.maxPowerW, s.meanUtilPct]).toEqual([null, null, null]);
  });

  test("no samples: empty summary, no series", () => {
    const s = summariseTelemetry(["nothing tagged here"]);
    expect(s).toMatchObject({ samples: 0, maxTempC: null, maxPowerW: null, meanUtilPct: null, throttleReasons: [], xids: [], series: {} });
    const t = telemetryMetrics(s);
    expect(t.metrics.xid_hardware).toBeNull();
    expect(t.unmeasured.xid_hardware).toBe("no telemetry sample in the output (the sampler runs beside local rank 0 of each node)");
  });

  test("two hours of 8 nodes sampled every 500 ms: each series thinned to a plot's worth, the peak kept", () => {
    const texts = Array.from({ length: 8 }, (_, n) =>
      Array.from({ length: 14_400 }, (_, i) => {
        const spike = n === 5 && i === 9_001 ? 91 : 60 + (i % 7);
        return line({ t: 1_700_000_000 + i * 0.5 + n * 0.01, host: `gpu-0${n}`, gpus: [gpu(0, 100, 600 + (i % 50), spike)], xids: [] });
      }).join("\n"),
    );
    const s = summariseTelemetry(texts);
    expect(s.samples).toBe(115_200);
    expect(s.maxTempC).toBe(91);
    for (const pts of Object.values(s.series!)) {
      expect(pts.length).toBeLessThanOrEqual(MAX_SERIES_POINTS);
      expect(pts.length).toBeGreaterThan(MAX_SERIES_POINTS - 5);
      for (let i = 1; i < pts.length; i++) expect(pts[i]!.x).toBeGreaterThan(pts[i - 1]!.x);
    }
    expect(Math.max(...s.series!.temp_c!.map((p) => p.y))).toBe(91);
    expect(Math.max(...s.series!.power_w!.map((p) => p.y))).toBe(649);
    expect(s.series!.util_pct!.every((p) => p.y === 100)).toBe(true);
    expect(JSON.stringify(s).length).toBeLessThan(100_000);
  });
});

describe("thinSeries", () => {
  const pts = (ys: number[]) => ys.map((y, x) => ({ x, y }));
  test("short series are only put in time order", () => {
    expect(
      thinSeries(
        [
          { x: 2, y: 1 },
          { x: 1, y: 5 },
        ],
        10,
        "max",
      ),
    ).toEqual([
      { x: 1, y: 5 },
      { x: 2, y: 1 },
    ]);
  });
  test("equal time buckets: the peak or the mean of each", () => {
    const ys = [1, 9, 2, 2, 3, 5, 4, 4];
    expect(thinSeries(pts(ys), 4, "max").map((p) => p.y)).toEqual([9, 2, 5, 4]);
    expect(thinSeries(pts(ys), 4, "mean").map((p) => p.y)).toEqual([5, 2, 4, 4]);
    expect(thinSeries(pts(ys), 4, "mean").map((p) => p.x)).toEqual([0.5, 2.5, 4.5, 6.5]);
  });
  test("samples that share one instant still make one point", () => {
    expect(
      thinSeries(
        [
          { x: 3, y: 1 },
          { x: 3, y: 7 },
          { x: 3, y: 2 },
        ],
        2,
        "max",
      ),
    ).toEqual([{ x: 3, y: 7 }]);
  });
});
