// The trend arithmetic on rounds given as numbers: which rounds make the reference and the end, the
// direction a metric gets worse in, counters that must not move, and a part measured too rarely.
// (The integration tier's test/integration/soak/ finds a real slowed rank through the binary.)
import { describe, expect, test } from "bun:test";
import type { PartId, ResultsFile } from "../../lib/core/types.ts";
import { appendRound, emptySeries } from "../../lib/soak/series.ts";
import { trendsOf } from "../../lib/soak/trend.ts";

const part = (rank: number): PartId => ({ type: "gpu", host: "node1", rank, index: rank, uuid: `GPU-${rank}`, pciBusId: `00000000:1${rank}:00.0` });

/** One round's results: each rank's value of each metric (null: unmeasured that round). */
function round(values: Record<string, Array<number | null>>): ResultsFile {
  const ranks = Object.values(values)[0]!.length;
  const components = Array.from({ length: ranks }, (_, r) => ({ part: part(r), metrics: Object.fromEntries(Object.entries(values).map(([m, v]) => [m, v[r]!])) }));
  return {
    tests: [
      {
        name: "burn",
        kind: "burn",
        units: [{ unit: "all", hosts: ["node1"], measurement: { metrics: {}, components } }],
      },
    ],
  } as unknown as ResultsFile;
}

const INFO: Record<string, { unit: string; better: "higher" | "lower" }> = {
  tflops: { unit: "TFLOP/s", better: "higher" },
  temp: { unit: "C", better: "lower" },
  errors: { unit: "count", better: "lower" },
};
const opts = { maxDrift: 0.1, metricInfo: (_k: string, m: string) => INFO[m] };
/** The series store as the soak keeps it, each round's figures appended as it ends. */
function rounds(series: Array<Record<string, Array<number | null>>>) {
  const store = emptySeries();
  for (const [i, v] of series.entries()) appendRound(store, i + 1, round(v));
  return store;
}

describe("trendsOf", () => {
  test("a GPU falling 20 % from its first third to its last fails with its series; its steady neighbour passes", () => {
    const t = trendsOf(
      rounds([{ tflops: [700, 700] }, { tflops: [702, 690] }, { tflops: [698, 600] }, { tflops: [701, 560] }, { tflops: [699, 560] }, { tflops: [700, 555] }]),
      opts,
    );
    expect(t.map((x) => [x.part?.rank, x.verdict])).toEqual([
      [0, "passed"],
      [1, "failed"],
    ]);
    // six rounds: the reference is the median of rounds 1–2, the end of rounds 5–6
    expect(t[1]!.reference).toBe(695);
    expect(t[1]!.end).toBe(557.5);
    expect(t[1]!.worst).toEqual({ round: 6, value: 555 });
    expect(t[1]!.message).toBe(
      "node1 GPU 1 (GPU-1, 00000000:11:00.0): tflops fell 20 % over the soak: 695 TFLOP/s (median of rounds 1–2) → 558 TFLOP/s (median of rounds 5–6), beyond the 10 % a part may drift (--max-drift); worst round 6 (555); by round 1: 700, 2: 690, 3: 600, 4: 560, 5: 560, 6: 555",
    );
    expect(t[1]!.slopePerRound!).toBeLessThan(0);
  });

  test("lower is better: a temperature rising 15 % fails, one falling passes", () => {
    const t = trendsOf(rounds([{ temp: [60, 60] }, { temp: [61, 58] }, { temp: [69, 55] }]), opts);
    expect(t.map((x) => [x.part?.rank, x.verdict, x.change!.toFixed(4)])).toEqual([
      [0, "failed", "0.1500"],
      [1, "passed", "-0.0833"],
    ]);
    expect(t[0]!.message).toStartWith("node1 GPU 0 (GPU-0, 00000000:10:00.0): temp rose 15 % over the soak: 60 C (median of round 1) → 69 C (median of round 3), beyond");
  });

  test("a counter that must stay at zero fails when it moves at all, however little", () => {
    const t = trendsOf(rounds([{ errors: [0, 0] }, { errors: [0, 0] }, { errors: [0, 1] }]), opts);
    expect(t.map((x) => x.verdict)).toEqual(["passed", "failed"]);
    expect(t[1]!.message).toContain("errors from 0 to 1 over the soak");
    expect(t[1]!.message).toContain("beyond a count that must not grow");
  });

  test("measured in fewer than 3 rounds is an error, never a pass; never measured is no trend at all", () => {
    const t = trendsOf(rounds([{ tflops: [700, null] }, { tflops: [700, 650] }, { tflops: [700, null] }, { tflops: [700, null] }]), opts);
    expect(t.map((x) => [x.part?.rank, x.verdict])).toEqual([
      [0, "passed"],
      [1, "error"],
    ]);
    expect(t[1]!.message).toBe("node1 GPU 1 (GPU-1, 00000000:11:00.0): tflops measured in 1 of 4 rounds: a trend needs at least 3; never counted passed");
    expect(trendsOf(rounds([{ tflops: [null, null] }, { tflops: [null, null] }, { tflops: [null, null] }]), opts)).toEqual([]);
  });

  test("a metric with no known direction is not judged over time", () => {
    expect(trendsOf(rounds([{ other: [1, 2] }, { other: [1, 2] }, { other: [1, 2] }]), opts)).toEqual([]);
  });
});

describe("the series store", () => {
  test("a part first seen in a later round has nulls for the rounds before; a round appended twice counts once", () => {
    const store = emptySeries();
    appendRound(store, 1, round({ tflops: [700] }));
    appendRound(store, 2, round({ tflops: [700, 650] }));
    appendRound(store, 2, round({ tflops: [1, 1] }));
    expect(store.rounds).toEqual([1, 2]);
    expect(store.keys.map((k) => [k.part?.rank, k.metric])).toEqual([
      [0, "tflops"],
      [1, "tflops"],
    ]);
    expect(store.values).toEqual([
      [700, 700],
      [null, 650],
    ]);
  });
});
