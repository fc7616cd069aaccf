// metrics.prom read back by a parser written from the format's grammar (test/report/prom-parse.ts;
// Prometheus' Python client in test/integration/report/metrics-prom-client.test.ts), for the values (the integration tier runs
// `promtool check metrics` and node_exporter on the binary's file): families, escaping, NaN for what
// was not measured, verdicts as labels, and a killed run never passed.
import { describe, expect, test } from "bun:test";
import { renderMetricsProm } from "../../lib/report/metrics-prom.ts";
import { FIXTURES } from "../fixtures/results/fixtures.ts";
import { gemmParts, killedAhead } from "./ecosystem-fixtures.ts";

import { parse, type Sample } from "./prom-parse.ts";

const of = (s: Sample[], name: string) => s.filter((x) => x.name === name);

describe("metrics.prom", () => {
  test("every results fixture parses, each family is one gauge block, and no series appears twice", () => {
    for (const build of Object.values({ ...FIXTURES, gemmParts, killedAhead })) {
      const text = renderMetricsProm(build());
      const { samples } = parse(text);
      const keys = samples.map((s) => JSON.stringify([s.name, s.labels]));
      expect(new Set(keys).size).toBe(keys.length);
      const order = samples.map((s) => s.name).filter((n, i, a) => a[i - 1] !== n);
      expect(new Set(order).size).toBe(order.length);
    }
  });

  // Prometheus' own Python client on the same files: test/integration/report/metrics-prom-client.test.ts

  test("per part: each judged value with its verdict, the unmeasured GPU NaN and an error, never 0", () => {
    const { samples } = parse(renderMetricsProm(gemmParts()));
    const checks = of(samples, "gpucheck_check_value").filter((s) => s.labels.part);
    expect(checks.map((s) => [s.labels.part, s.labels.node, s.labels.verdict, s.value])).toEqual([
      ["GPU 0 00000000:18:00.0", "gpu-01", "passed", 790],
      ["GPU 1 00000000:19:00.0", "gpu-01", "passed", 800],
      ["GPU 2 00000000:20:00.0", "gpu-01", "error", NaN],
      ["GPU 3 00000000:21:00.0", "gpu-01", "failed", 512.3],
    ]);
    expect(checks[3]!.labels).toMatchObject({
      test: "gemm",
      metric: "gemm_bf16_tflops",
      metric_unit: "TFLOP/s",
      expected: "700",
      uuid: "GPU-00000003-aaaa-bbbb-cccc-dddddddddddd",
    });
    expect(of(samples, "gpucheck_test_passed")).toEqual([
      { name: "gpucheck_test_passed", labels: { suite: "h100-8x", cluster: "acme-h100-a", test: "gemm", kind: "gemm", unit: "all", node: "gpu-01", verdict: "error" }, value: 0 },
    ]);
    expect(of(samples, "gpucheck_run_passed")[0]!.value).toBe(0);
  });

  test("per node: a per-node test's units are labelled with their node", () => {
    const r = FIXTURES["per-node"]();
    const { samples } = parse(renderMetricsProm(r));
    const nodes = of(samples, "gpucheck_test_passed").filter((s) => s.labels.test === "nvlink-allreduce");
    expect(nodes.map((s) => [s.labels.node, s.labels.verdict, s.value])).toEqual([
      ["gpu-01", "passed", 1],
      ["gpu-02", "passed", 1],
      ["gpu-03", "failed", 0],
      ["gpu-04", "passed", 1],
    ]);
    const busbw = of(samples, "gpucheck_check_value").filter((s) => s.labels.node === "gpu-03" && s.labels.metric === "busbw");
    expect(busbw.map((s) => [s.labels.test, s.labels.verdict, s.value])).toEqual([
      ["nvlink-allreduce", "failed", r.tests[0]!.units[2]!.measurement!.metrics.busbw as number],
      ["ib-allreduce", "passed", r.tests[1]!.units[2]!.measurement!.metrics.busbw as number],
    ]);
  });

  test("a node whose result never came back has its own error sample", () => {
    const r = FIXTURES["per-node"]();
    const t = { ...r.tests[0]!, units: r.tests[0]!.units.slice(0, 3), missing: ["gpu-04"], outcome: "error" as const };
    const { samples } = parse(renderMetricsProm({ ...r, tests: [t] }));
    expect(of(samples, "gpucheck_test_passed").map((s) => [s.labels.node, s.labels.verdict, s.value])).toEqual([
      ["gpu-01", "passed", 1],
      ["gpu-02", "passed", 1],
      ["gpu-03", "failed", 0],
      ["gpu-04", "error", 0],
    ]);
  });

  test("a killed run: unfinished tests say so, the run is incomplete and not passed, and it has no end", () => {
    const { samples } = parse(renderMetricsProm(killedAhead()));
    expect(of(samples, "gpucheck_test_passed").map((s) => [s.labels.test, s.labels.verdict, s.value])).toEqual([
      ["nvlink-allreduce", "passed", 1],
      ["resnet18-fashionmnist", "unfinished", 0],
      ["inventory", "unfinished", 0],
    ]);
    expect(of(samples, "gpucheck_run_passed")[0]!.value).toBe(0);
    expect(of(samples, "gpucheck_run_info")[0]!.labels.outcome).toBe("incomplete");
    expect(of(samples, "gpucheck_run_end_timestamp_seconds")).toEqual([]);
  });

  test("a passed, finished run is passed; label values with quotes, backslashes and newlines read back whole", () => {
    const r = FIXTURES.passing();
    expect(of(parse(renderMetricsProm(r)).samples, "gpucheck_run_passed")[0]!.value).toBe(1);
    const name = 'odd "name" \\ with\nnewline';
    const { samples } = parse(renderMetricsProm({ ...r, tests: r.tests.map((t, i) => (i === 0 ? { ...t, name } : t)) }));
    expect(of(samples, "gpucheck_test_passed")[0]!.labels.test).toBe(name);
  });
});
