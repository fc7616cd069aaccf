// The nvlink matrix in report.html: one per host and phase, a cell per ordered pair with its GB/s, a
// missing pair drawn as "n/a" rather than left out, through the report's own renderPlot.
import { expect, test } from "bun:test";
import { KINDS } from "../../lib/kinds/mod.ts";
import { renderPlot } from "../../lib/core/plot-svg.ts";
import type { TestResult } from "../../lib/core/types.ts";

const cpu = (rank: number) => ({ rank, local_rank: rank, host: "vm", device: { type: "cpu", name: "AMD EPYC", index: null, uuid: null, pci_bus_id: null } });
const timed = (src: number, dst: number, gbps: number) => ({ src, dst, gbps, best_gbps: gbps, median_gbps: gbps, bytes: 4, calls: [gbps] });
const raw = {
  ranks: [cpu(0), cpu(1), cpu(2)],
  pairs: [timed(0, 1, 2.5), timed(0, 2, 2.25), timed(1, 0, 2), timed(1, 2, 2), timed(2, 0, 1)],
  all: [],
};
const test3 = { name: "links", units: [{ unit: "vm", measurement: { metrics: {}, raw } }] } as unknown as TestResult;

test("a matrix per phase: every ordered pair a cell with its GB/s, the missing one n/a, the empty phase drawn all n/a", () => {
  const plots = KINDS.nvlink.plots(test3, {
    id: (k) => `plot-0-${k}`,
    series: () => [],
    plot: () => {
      throw new Error("the matrix is not a line plot");
    },
  });
  expect(plots.map((p) => [p.id, p.title, p.kind])).toEqual([
    ["plot-0-nvlink_link_gbps-vm", "links vm: GB/s of each ordered pair alone", "nvlink_matrix"],
    ["plot-0-nvlink_link_all_gbps-vm", "links vm: GB/s of each link, all pairs at once", "nvlink_matrix"],
  ]);
  expect(plots[0]!.series.map((s) => [s.name, s.points])).toEqual([
    [
      "from rank 0",
      [
        [0, null],
        [1, 2.5],
        [2, 2.25],
      ],
    ],
    [
      "from rank 1",
      [
        [0, 2],
        [1, null],
        [2, 2],
      ],
    ],
    [
      "from rank 2",
      [
        [0, 1],
        [1, null],
        [2, null],
      ],
    ],
  ]);
  const svg = renderPlot(plots[0]!);
  expect(svg).toStartWith('<svg class="plot matrix" id="plot-0-nvlink_link_gbps-vm"');
  const cells = [...svg.matchAll(/<g class="cell" data-src="(\d)" data-dst="(\d)" data-gbps="([\d.]*)"><title>([^<]*)<\/title>.*?>([^<>]*)<\/text><\/g>/g)].map((m) => m.slice(1));
  expect(cells).toEqual([
    ["0", "1", "2.5", "rank 0 → rank 1: 2.5 GB/s", "2.50"],
    ["0", "2", "2.25", "rank 0 → rank 2: 2.3 GB/s", "2.25"],
    ["1", "0", "2", "rank 1 → rank 0: 2.0 GB/s", "2.00"],
    ["1", "2", "2", "rank 1 → rank 2: 2.0 GB/s", "2.00"],
    ["2", "0", "1", "rank 2 → rank 0: 1.0 GB/s", "1.00"],
    ["2", "1", "", "rank 2 → rank 1: not measured", "n/a"],
  ]);
});
