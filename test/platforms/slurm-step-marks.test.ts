import { expect, test } from "bun:test";
import type { UnitRun } from "../../lib/core/types.ts";
import { StepMarks } from "../../plugins/slurm/step-marks.ts";

const began = "2026-11-26T09:00:00.000Z";

test("a node of the job-wide step ends once each of its ranks printed its mark; a round's unit with its step's mark", () => {
  const seen: UnitRun[] = [];
  const marks = new StepMarks(
    [
      { unit: "n1", hosts: ["n1"], ranks: 2 },
      { unit: "n2", hosts: ["n2"], ranks: 2 },
      { unit: "n3+n4", hosts: ["n3", "n4"], ranks: 2 },
    ],
    began,
    (r) => seen.push(r),
  );
  // the lines as sbatch.ts's scripts print them (rank marks from the per-node sweep, a step mark per unit of a round)
  marks.see(["gpucheck-step unit=n1 rank=0 exit=0", "some rank output", "gpucheck-step unit=n2 rank=1 exit=3"]);
  expect(seen).toEqual([]);
  marks.see(["gpucheck-step unit=n1 rank=1 exit=0", "gpucheck-step unit=n3+n4 exit=0"]);
  marks.see(["gpucheck-step unit=n2 rank=0 exit=0", "gpucheck-step unit=n1 rank=1 exit=0", "gpucheck-step unit=unknown exit=0"]);
  expect(seen.map((r) => [r.unit, r.status, r.message, r.startedAt])).toEqual([
    ["n1", "completed", undefined, began],
    ["n3+n4", "completed", undefined, began],
    ["n2", "failed", "rank 1 exited 3", began],
  ]);
});
