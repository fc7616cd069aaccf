// The x axis of a report plot: every tick label stays inside the SVG. The last tick sits 16 px from
// the right edge, where a centred "16 MiB" was cut to "16 MiE".
import { expect, test } from "bun:test";
import { renderPlot } from "../../lib/core/plot-svg.ts";

const plot = renderPlot({
  id: "p",
  title: "busbw",
  kind: "busbw",
  xLabel: "message size",
  yLabel: "GB/s",
  xScale: "log2",
  xBytes: true,
  series: [
    {
      name: "node01",
      points: [
        [1024, 1],
        [16 * 1024 ** 2, 40],
      ],
    },
  ],
});

test("the last x tick label ends at its tick, inside the SVG; the others are centred", () => {
  const ticks = [...plot.matchAll(/<line class="tick" x1="([\d.]+)"[^>]*\/><text x="([\d.]+)" y="[\d.]+" text-anchor="(\w+)">([^<]*)<\/text>/g)].map((m) => ({
    x: Number(m[2]),
    anchor: m[3],
    label: m[4],
  }));
  expect(ticks.at(-1)).toEqual({ x: 544, anchor: "end", label: "16 MiB" });
  expect(ticks.slice(0, -1).every((t) => t.anchor === "middle")).toBe(true);
  expect(ticks[0]).toEqual({ x: 64, anchor: "middle", label: "1 KiB" });
});
