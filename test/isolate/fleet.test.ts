// lib/isolate/fleet.ts: each node's value against the median of the run's nodes in scaled MADs
// (k = 3 by default), only on the bad side, with the edge cases said in words: a MAD of 0, an
// unmeasured node, too few values.
import { expect, test } from "bun:test";
import { FLEET_K, fleetOutliers } from "../../lib/isolate/mod.ts";

const nodes = (xs: Array<number | null>) => xs.map((value, i) => ({ node: `gpu0${i + 1}`, value }));

test("a slow node 13 scaled MADs below the median is flagged with its value, the median and the ratio", () => {
  const rows = fleetOutliers(nodes([100, 101, 99, 100, 102, 98, 80]), { higher: true });
  expect(FLEET_K).toBe(3);
  expect(rows.filter((r) => r.outlier).map((r) => r.node)).toEqual(["gpu07"]);
  const r = rows[6]!;
  expect([r.value, r.median, r.mad, r.ratio, r.deviations?.toFixed(2)]).toEqual([80, 100, 1, 0.8, "-13.49"]);
  expect(r.why).toBe("80 is 13.49 scaled MADs below the median 100 (0.8 ×); an outlier: the cut is 3 below");
  expect(rows[0]!.why).toBe("100 is at the median 100 (1 ×); not an outlier: the cut is 3 below");
});

test("only the bad side: a faster node is not flagged; for latency the high side is", () => {
  expect(fleetOutliers(nodes([100, 101, 99, 100, 150]), { higher: true }).some((r) => r.outlier)).toBe(false);
  const lat = fleetOutliers(nodes([10, 10.2, 9.9, 10.1, 14]), { higher: false });
  expect(lat.map((r) => r.outlier)).toEqual([false, false, false, false, true]);
  expect(lat[4]!.why).toBe("14 is 26.31 scaled MADs above the median 10.1 (1.386 ×); an outlier: the cut is 3 above");
});

test("a MAD of 0 does not flag every tiny difference: the scale is floored at 1 % of the median", () => {
  const tiny = fleetOutliers(nodes([100, 100, 100, 100, 99.9]), { higher: true });
  expect(tiny.map((r) => r.outlier)).toEqual([false, false, false, false, false]);
  expect(tiny[4]!.why).toBe("99.9 is 0.1 × 1 % of the median (the scaled MAD, 0, is smaller) below the median 100 (0.999 ×); not an outlier: the cut is 3 below");
  const real = fleetOutliers(nodes([100, 100, 100, 100, 90]), { higher: true });
  expect(real.map((r) => r.outlier)).toEqual([false, false, false, false, true]);
});

test("an unmeasured node gets no verdict, never a pass; fewer than 3 values give none at all", () => {
  const rows = fleetOutliers(nodes([100, 101, 99, null]), { higher: true });
  expect(rows[3]).toEqual({ node: "gpu04", value: null, median: 100, mad: 1, ratio: null, deviations: null, outlier: null, why: "unmeasured" });
  const few = fleetOutliers(nodes([100, null, 50]), { higher: true });
  expect(few.map((r) => [r.outlier, r.why])).toEqual([
    [null, "no fleet verdict: 2 measured values, at least 3 needed for a median"],
    [null, "unmeasured; no fleet verdict: 2 measured values, at least 3 needed for a median"],
    [null, "no fleet verdict: 2 measured values, at least 3 needed for a median"],
  ]);
});

test("k is the caller's to set; a k that is not a positive number is refused", () => {
  expect(fleetOutliers(nodes([100, 101, 99, 100, 97]), { higher: true, k: 2 }).map((r) => r.outlier)).toEqual([false, false, false, false, true]);
  expect(() => fleetOutliers(nodes([1, 2, 3]), { higher: true, k: 0 })).toThrow("fleetOutliers: k must be a positive number: got 0");
});
