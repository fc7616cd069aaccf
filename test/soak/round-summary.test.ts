// A soak round's row in the soak's index names the hosts the round's test ran on; a test that ran on
// no host (a fabric sweep: its findings name cables) says so rather than "passed on " and nothing.
import { describe, expect, test } from "bun:test";
import { roundSummaries } from "../../lib/soak/index-results.ts";
import type { SoakRound } from "../../lib/soak/state.ts";
import { results, test as testResult } from "../fixtures/results/build.ts";

const round: SoakRound = {
  round: 2,
  dir: "rounds/002",
  startedAt: "2025-03-04T05:06:07.250Z",
  endedAt: "2025-03-04T05:07:07.250Z",
  outcome: "passed",
  complete: true,
  resultsSha256: "a".repeat(64),
};

const unit = (hosts: string[]) => ({ unit: "all", hosts, status: "completed" as const, startS: 0, durationS: 5, measurement: { metrics: {} }, tail: "" });

describe("a soak round's summary row", () => {
  test("a test on hosts: passed on the hosts, compressed", () => {
    const [s] = roundSummaries(round, results([testResult("nccl", "collective", [], [unit(["gpu01", "gpu02"])])]));
    expect(s!.unit.verdict.reason).toBe(`round 2: passed on gpu[01-02] (rounds/002/results.json (sha256 ${"a".repeat(64)}))`);
  });

  test("a test on no host (the fabric's sweep): passed, with no empty host list", () => {
    const [s] = roundSummaries(round, results([testResult("fabric", "fabric", [], [unit([])])]));
    expect(s!.unit.verdict.reason).toBe(`round 2: passed (rounds/002/results.json (sha256 ${"a".repeat(64)}))`);
    expect(s!.unit.hosts).toEqual([]);
  });
});
