// metrics.prom read by Prometheus' own Python client (Debian's python3-prometheus-client), its
// text-format and OpenMetrics parsers, sample for sample against test/report/prom-parse.ts.
import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { renderMetricsProm } from "../../../lib/report/metrics-prom.ts";
import { FIXTURES } from "../../fixtures/results/fixtures.ts";
import { gemmParts, killedAhead } from "../../report/ecosystem-fixtures.ts";
import { prometheusClientReads } from "../../report/ecosystem-validators.ts";
import { parse } from "../../report/prom-parse.ts";
import { tempDir } from "../../tmp.ts";

describe("metrics.prom", () => {
  test("Prometheus' own client reads every run's file, as the Prometheus text format and as OpenMetrics, sample for sample", () => {
    const dir = tempDir("gpucheck-prom-");
    const runs = Object.entries({ ...FIXTURES, gemmParts, killedAhead }).map(([name, build]) => {
      const text = renderMetricsProm(build());
      writeFileSync(join(dir, `${name}.prom`), text);
      return { path: join(dir, `${name}.prom`), samples: parse(text).samples.length };
    });
    expect(prometheusClientReads(...runs.map((r) => r.path))).toEqual(runs.map((r) => ({ path: r.path, prometheus: r.samples, openmetrics: r.samples })));
    // the check is real: OpenMetrics needs the closing line
    const cut = join(dir, "cut.prom");
    writeFileSync(cut, renderMetricsProm(FIXTURES.passing()).replace("# EOF\n", ""));
    expect(prometheusClientReads(cut)[0]!.openmetrics).toBe("ValueError: Missing # EOF at end");
  });
});
