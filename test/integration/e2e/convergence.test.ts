// A rank that does not learn, found: the cpu-smoke training (ResNet-18 on the generated
// FashionMNIST-format set, DDP over 2 CPU ranks) with rank 1 fed all-zero inputs through the
// workload's fault switch (GPUCHECK_TEST_ZERO_INPUTS_RANK, train.py). DDP still averages its
// gradients into the shared weights, but on its own batches its loss stays at or above chance
// (ln 10 = 2.30): the per-rank loss threshold must fail rank 1 by name and pass rank 0, through the
// binary copied alone into an empty directory.
import { describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { chmodSync, copyFileSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../../e2e/cli.ts";
import type { MetricCheck, ResultsFile } from "../../../lib/core/types.ts";

const SUITE = `name: convergence-cpu
tests:
  - name: resnet18-fashionmnist
    kind: train
    gpusPerNode: 0
    ranksPerNode: 2
    train: { model: resnet18, data: fashionmnist, dataDir: "@generated", batchSize: 16, steps: 20, warmupSteps: 2 }
    expect:
      # chance is ln(10) = 2.30: a rank whose inputs carry no signal cannot fall below it, a learning
      # rank falls far below (0.58 here with a zeroed partner, 0.065 without, at 20 steps of 32)
      rank_loss_end: { max: 2.0 }
`;

describe("a rank that does not learn", () => {
  test("rank 1 on all-zero inputs fails the per-rank loss threshold by name, rank 0 passes", () => {
    const bin = process.env.GPUCHECK_TEST_BINARY;
    if (!bin) throw new Error("GPUCHECK_TEST_BINARY is not set: run this file through scripts/test-integration.sh");
    const dir = tempDir("convergence");
    copyFileSync(bin, join(dir, "gpucheck"));
    chmodSync(join(dir, "gpucheck"), 0o755);
    writeFileSync(join(dir, "suite.yaml"), SUITE);
    const r = spawnSync("./gpucheck", ["suite", "suite.yaml", "--python", "/usr/bin/python3", "--out", "out", "--progress", "none"], {
      cwd: dir,
      encoding: "utf8",
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: dir, TMPDIR: process.env.TMPDIR ?? "/tmp", NO_COLOR: "1", GPUCHECK_TEST_ZERO_INPUTS_RANK: "1" },
      timeout: 280_000,
    });
    expect(r.status).toBe(1);
    const results = JSON.parse(readFileSync(join(dir, "out", "results.json"), "utf8")) as ResultsFile;
    const unit = results.tests[0]!.units[0]!;
    const host = unit.hosts[0]!;
    const checks = unit.verdict.checks as MetricCheck[];
    expect(checks.map((c) => [c.metric, c.part?.rank, c.ok])).toEqual([
      ["rank_loss_end", 0, true],
      ["rank_loss_end", 1, false],
    ]);
    // at or above chance on its own inputs: the rank learnt nothing
    expect(checks[1]!.measured!).toBeGreaterThan(2);
    expect(checks[1]!.message).toMatch(
      new RegExp(`^${host.replace(/[.]/g, "\\.")} rank 1 \\(CPU\\): rank_loss_end [0-9.]+ > 2 expected \\(\\+[0-9]+%\\): mean over its last 5 steps, on its own batches$`),
    );
    expect(r.stdout).toContain(`Failing components:\n  resnet18-fashionmnist: failed: ${host} rank 1 (CPU): rank_loss_end `);
    // both ranks started from chance
    for (const c of unit.measurement!.components!) expect(c.metrics.rank_loss_start!).toBeGreaterThan(1.5);
  }, 300_000);
});
