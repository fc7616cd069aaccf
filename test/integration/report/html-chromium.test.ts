// report.html as a browser shows it: each fixture's page loaded by headless Chromium (Debian's
// chromium, which the unit tier must not need: issue 30), its plots counted after the page's script
// laid them out, and a screenshot. What needs no browser (self-contained, telemetry lines, thinning)
// is in test/report/html.test.ts.
import { beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { writeFinalFiles } from "../../../lib/report/write.ts";
import type { ResultsFile } from "../../../lib/core/types.ts";
import { FIXTURES } from "../../fixtures/results/fixtures.ts";
import { dumpDom, screenshot } from "../../report/chromium.ts";
import { assertJunitValid } from "../../report/junit-check.ts";
import { tempDir } from "../../tmp.ts";

/** data-* attributes of every <svg class="plot"> in a DOM dump, by plot id. */
function plots(dom: string): Map<string, Record<string, string>> {
  const out = new Map<string, Record<string, string>>();
  for (const m of dom.matchAll(/<svg class="plot"([^>]*)>/g)) {
    const a = Object.fromEntries([...m[1].matchAll(/([\w-]+)="([^"]*)"/g)].map((x) => [x[1], x[2]]));
    out.set(a.id, a);
  }
  return out;
}

/**
 * What the fixture data says should be drawn, computed from results.json and not from the
 * renderer: a busbw curve per unit with a sweep, a throughput curve per training unit, and one
 * curve per unit with telemetry in each of the three telemetry plots.
 */
function expectedPlots(r: ResultsFile): Map<string, number> {
  const want = new Map<string, number>();
  r.tests.forEach((t, i) => {
    const count = (has: (u: (typeof t.units)[number]) => boolean) => t.units.filter(has).length;
    const add = (k: string, n: number) => n > 0 && want.set(`plot-${i}-${k}`, n);
    if (t.kind === "collective")
      add(
        "busbw",
        count((u) => (u.measurement?.bySize?.busbw?.length ?? 0) > 0),
      );
    if (t.kind === "train")
      add(
        "samples_per_s",
        count((u) => (u.measurement?.series?.samples_per_s?.length ?? 0) > 0),
      );
    for (const k of ["util_pct", "power_w", "temp_c"])
      add(
        k,
        count((u) => (u.telemetry?.series?.[k]?.length ?? 0) > 0),
      );
  });
  return want;
}

const dir = tempDir("gpucheck-html-");
const doms = new Map<string, string>();

beforeAll(() => {
  for (const [name, build] of Object.entries(FIXTURES)) {
    const out = join(dir, name);
    mkdirSync(out);
    writeFinalFiles(out, build());
    assertJunitValid(join(out, "junit.xml"));
    doms.set(name, dumpDom(join(out, "report.html")));
  }
}, 180_000);

describe("report.html in headless Chromium", () => {
  for (const name of Object.keys(FIXTURES)) {
    test(`${name}: every plot rendered with the expected number of series`, () => {
      const dom = doms.get(name)!;
      const got = plots(dom);
      const want = expectedPlots(FIXTURES[name]());
      expect([...got.keys()].sort()).toEqual([...want.keys()].sort());
      for (const [id, n] of want) {
        expect(got.get(id)!["data-series-count"]).toBe(String(n));
        // set by the page's script after layout, from the geometry Chromium computed
        expect(got.get(id)!["data-rendered-series"]).toBe(String(n));
      }
      expect(dom).toContain(`data-plots-rendered="${want.size}"`);
    });
  }

  test("per node: one busbw curve per node that ran, the drained node absent, threshold drawn as a line", () => {
    const dom = doms.get("per-node")!;
    const p = plots(dom);
    expect(p.get("plot-0-busbw")!["data-series-count"]).toBe("4");
    expect(p.get("plot-1-busbw")!["data-series-count"]).toBe("3");
    expect(p.get("plot-0-busbw")!["data-x-scale"]).toBe("log2");
    const svg = dom.slice(dom.indexOf('id="plot-0-busbw"'), dom.indexOf("</svg>", dom.indexOf('id="plot-0-busbw"')));
    expect([...svg.matchAll(/<g class="series" data-series="([^"]+)"/g)].map((m) => m[1])).toEqual(["gpu-01", "gpu-02", "gpu-03", "gpu-04"]);
    expect(svg).toContain('<g class="threshold" data-threshold="400">');
    // human size labels on the log-scale axis, the largest size labelled
    for (const label of [">8 B<", ">8 KiB<", ">2 MiB<", ">8 GiB<"]) expect(svg).toContain(label);
  });

  test("a killed run still shows its partial busbw curve (up to 256 MiB)", () => {
    const svg = doms.get("error-killed")!;
    expect(svg).toMatch(/<g class="series" data-series="nvlink-allreduce" data-points="26"/);
    expect(svg).toContain(">256 MiB<");
  });

  test("the verdict table has every unit with its verdict", () => {
    const dom = doms.get("per-node")!;
    const rows = [...dom.matchAll(/<tr data-outcome="(\w+)">/g)].map((m) => m[1]);
    expect(rows).toEqual(["passed", "passed", "failed", "passed", "passed", "passed", "passed", "skipped"]);
  });

  test("hostile log text is shown as text, not markup", () => {
    const dom = doms.get("hostile-tail")!;
    expect(dom).toContain(']]&gt; closes CDATA, &lt;tag attr="v"&gt; &amp; entity &amp;amp;');
    expect(dom).not.toContain("<tag attr");
  });

  test("a screenshot renders (look at it: GPUCHECK_KEEP_SCREENSHOTS=<dir>)", () => {
    const outDir = process.env.GPUCHECK_KEEP_SCREENSHOTS ?? dir;
    mkdirSync(outDir, { recursive: true });
    const png = join(outDir, "per-node.png");
    screenshot(join(dir, "per-node", "report.html"), png);
    const bytes = readFileSync(png);
    expect(bytes.subarray(1, 4).toString()).toBe("PNG");
    expect(statSync(png).size).toBeGreaterThan(50_000);
  }, 60_000);
});
