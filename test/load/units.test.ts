// Sizes (nccl-tests convention: K/M/G are binary), durations, quantities, and metric units.
import { describe, expect, test } from "bun:test";
import { KINDS } from "../../lib/kinds/mod.ts";
import { type MetricInfo, TELEMETRY_METRICS, toCanonical, UNIT_ALIASES } from "../../lib/core/metrics.ts";

const METRICS = Object.fromEntries(Object.entries(KINDS).map(([k, v]) => [k, v.metrics as Record<string, MetricInfo>]));
import { closest } from "../../lib/core/did-you-mean.ts";
import { formatSize, parseDuration, parseQuantity, parseSize } from "../../lib/core/units.ts";

describe("sizes", () => {
  test.each([
    [8, 8],
    ["8", 8],
    ["8B", 8],
    ["64K", 65536],
    ["64KiB", 65536],
    ["64KB", 64000],
    ["8G", 8 * 1024 ** 3],
    ["8 GiB", 8 * 1024 ** 3],
    ["1.5MiB", 1.5 * 1024 ** 2],
    ["2GB", 2e9],
    ["1TiB", 1024 ** 4],
  ] as const)("%p is %p bytes", (input, bytes) => {
    expect(parseSize(input)).toEqual({ ok: true, value: bytes });
  });

  test.each(["8 GiBs", "8gib", "GiB", "-1", "1e3", "", "1.3B", 1.5])("%p is rejected", (input) => {
    expect(parseSize(input).ok).toBe(false);
  });

  test("formatting picks the largest exact binary unit", () => {
    expect([8, 1024, 1536, 8 * 1024 ** 3, 1e9, 1024 ** 4].map(formatSize)).toEqual(["8B", "1KiB", "1536B", "8GiB", "1000000000B", "1TiB"]);
  });
});

describe("durations", () => {
  test.each([
    [90, 90_000],
    ["90", 90_000],
    ["500ms", 500],
    ["90s", 90_000],
    ["10m", 600_000],
    ["1h30m", 5_400_000],
    ["1h 30m", 5_400_000],
    ["1.5h", 5_400_000],
    ["2m30s", 150_000],
  ] as const)("%p is %p ms", (input, ms) => {
    expect(parseDuration(input)).toEqual({ ok: true, value: ms });
  });

  test.each(["10 mins", "1d", "h", "", "1h30", "-5s"])("%p is rejected", (input) => {
    expect(parseDuration(input).ok).toBe(false);
  });
});

test("quantities split into number and unit", () => {
  expect(parseQuantity("400 GB/s")).toEqual({ value: 400, unit: "GB/s" });
  expect(parseQuantity("95%")).toEqual({ value: 95, unit: "%" });
  expect(parseQuantity("1e3 img/s")).toEqual({ value: 1000, unit: "img/s" });
  expect(parseQuantity(7)).toEqual({ value: 7, unit: "" });
  expect(parseQuantity("fast")).toBeUndefined();
});

describe("metric units", () => {
  const busbw = METRICS.collective.busbw;
  test.each([
    ["400 GB/s", 400],
    ["0.4 TB/s", 400],
    [400, 400],
    ["3200 Gb/s", 400],
    ["400000 MB/s", 400],
    ["1 GiB/s", 1.073741824],
  ] as const)("busbw %p → %p GB/s", (input, value) => {
    expect(toCanonical("busbw", busbw, input)).toEqual({ ok: true, value });
  });

  test("images per second are samples per second; times convert", () => {
    expect(toCanonical("samples_per_s", METRICS.train!.samples_per_s!, "2790 img/s")).toEqual({ ok: true, value: 2790 });
    expect(toCanonical("step_time_ms", METRICS.train.step_time_ms, "1.5 s")).toEqual({ ok: true, value: 1500 });
    expect(toCanonical("time_us", METRICS.collective.time_us, "2 ms")).toEqual({ ok: true, value: 2000 });
  });

  test("a unit of another dimension is refused with the accepted ones", () => {
    expect(toCanonical("samples_per_s", METRICS.train!.samples_per_s!, "400 GB/s")).toEqual({
      ok: false,
      reason: 'invalid value "400 GB/s" for metric "samples_per_s": expected a number in samples/s, sample/s, img/s, images/s, seq/s',
    });
    expect(toCanonical("wrong", METRICS.collective!.wrong!, "0 errors")).toEqual({ ok: false, reason: 'invalid value "0 errors" for metric "wrong": expected a number' });
  });

  test("the catalogue: snake_case names, known units, telemetry distinct from kinds", () => {
    const all = [...Object.values(METRICS).flatMap((m) => Object.entries(m)), ...Object.entries(TELEMETRY_METRICS)];
    for (const [name, info] of all) {
      expect(name).toMatch(/^[a-z][a-z0-9_]*$/);
      expect(Object.keys(UNIT_ALIASES)).toContain(info.unit);
      expect(info.description.length).toBeGreaterThan(10);
    }
    for (const kind of Object.values(METRICS)) for (const name of Object.keys(TELEMETRY_METRICS)) expect(kind[name]).toBeUndefined();
  });
});

test("did you mean: typos, case, transpositions; nothing for far or very short words", () => {
  const keys = ["gpusPerNode", "ranksPerNode", "nodes", "timeout", "env"];
  expect(closest("gpusPerNod", keys)).toBe("gpusPerNode");
  expect(closest("gpuspernode", keys)).toBe("gpusPerNode");
  expect(closest("timoeut", keys)).toBe("timeout");
  expect(closest("colour", keys)).toBeUndefined();
  expect(closest("ev", keys)).toBeUndefined();
});
