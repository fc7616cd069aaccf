// report.html as written, without a browser: nothing fetched, relative log links, the telemetry
// line, long series thinned. The page as headless Chromium draws it (plots, a screenshot) is in
// test/integration/report/html-chromium.test.ts.
import { describe, expect, test } from "bun:test";
import { withUnit } from "../../lib/core/quantity.ts";
import { renderHtml } from "../../lib/report/html.ts";
import { FIXTURES } from "../fixtures/results/fixtures.ts";

describe("self-contained", () => {
  test("nothing is fetched: no external URL, no <link>/src, a CSP that forbids fetching", () => {
    for (const build of Object.values(FIXTURES)) {
      const html = renderHtml(build());
      const urls = [...html.matchAll(/https?:\/\/[^\s"'<>]+/g)].map((m) => m[0]);
      // the SVG namespace is a name, never fetched
      expect(urls.filter((u) => u !== "http://www.w3.org/2000/svg")).toEqual([]);
      expect(html).not.toMatch(/<link|<img|\ssrc=|@import|url\(/);
      expect(html).toContain(`<meta http-equiv="Content-Security-Policy" content="default-src 'none';`);
    }
  });

  test("log links are relative to the results directory", () => {
    const html = renderHtml(FIXTURES["per-node"]());
    expect(html).toContain('logs/nvlink-allreduce/gpu-03/ <a href="logs/nvlink-allreduce/gpu-03/rank-0.log">rank-0.log</a>');
  });

  test("each unit's telemetry line names what was read, and says so when a node had no GPU", () => {
    const r = FIXTURES.passing();
    const u = r.tests[0].units[0];
    const tel = u.telemetry!;
    tel.xids = ['{"xid":79}'];
    tel.throttleReasons = ["hw_slowdown"];
    const line = (html: string) => /<p class="muted">telemetry: ([^<]*)<\/p>/.exec(html)![1];
    expect(line(renderHtml(r))).toBe(
      `${tel.samples} samples · hottest GPU ${withUnit(tel.maxTempC!, "°C")} · peak GPU power ${withUnit(tel.maxPowerW!, "W")} · mean GPU utilisation ${withUnit(tel.meanUtilPct!, "%")} · Xid events: {"xid":79} · throttled: hw_slowdown`,
    );
    u.telemetry = { samples: 3, maxTempC: null, maxPowerW: null, meanUtilPct: null, throttleReasons: [], xids: [], series: { cpu_util_pct: [{ x: 0, y: 50 }] } };
    expect(line(renderHtml(r))).toBe("3 samples · no GPU readings (CPU load plotted)");
  });

  test("telemetry series longer than the plot can show are thinned, keeping spikes", () => {
    const r = FIXTURES.passing();
    const tel = r.tests[0].units[0].telemetry!;
    tel.series!.power_w = Array.from({ length: 20_000 }, (_, i) => ({ x: i * 0.5, y: i === 12_345 ? 999 : 500 }));
    const html = renderHtml(r);
    const svg = html.slice(html.indexOf('id="plot-0-power_w"'), html.indexOf("</svg>", html.indexOf('id="plot-0-power_w"')));
    const points = Number(/data-points="(\d+)"/.exec(svg)![1]);
    expect(points).toBeLessThanOrEqual(600);
    expect(svg).toContain(">1000<"); // the y axis reaches the spike
  });
});
