// The burn through the compiled binary on two CPU ranks, as a new user would run it: the checksum
// repeated under the load agrees on healthy ranks and names the rank whose product changed (a bit
// flipped at two checks by the workload's test hook, GPUCHECK_BURN_FAULT_*), and a per-GPU reading
// a CPU cannot give (the temperature) is unmeasured, an error naming each rank, never a pass.
import { describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { gpucheck, tempDir } from "../../e2e/cli.ts";
import type { MetricCheck, ResultsFile } from "../../../lib/core/types.ts";

const SUITE = `name: burn-cpu
defaults: { gpusPerNode: 0, ranksPerNode: 2, python: /usr/bin/python3 }
tests:
  - name: burn
    kind: burn
    burn: { duration: 2s, window: 1s, checksumEvery: 5 }
    expect:
      burn_checksum_mismatches: { max: 0 }
      burn_gpu_checksum_mismatches: { max: 0 }
      burn_gpu_temp_max_c: { max: 87 }
  - name: burn-corrupt
    kind: burn
    env: { GPUCHECK_BURN_FAULT_RANK: 1, GPUCHECK_BURN_FAULT_CHECKS: "1,2" }
    burn: { duration: 2s, window: 1s, checksumEvery: 1 }
    expect:
      burn_gpu_checksum_mismatches: { max: 0 }
`;

const checksOf = (r: ResultsFile, i: number) => r.tests[i]!.units[0]!.verdict.checks as MetricCheck[];

describe("burn on CPU ranks through the binary", () => {
  test("healthy ranks agree; the rank whose product changed is named with its count; a GPU temperature on a CPU is an error per rank", () => {
    const dir = tempDir("burn-cpu");
    writeFileSync(join(dir, "suite.yaml"), SUITE);
    const out = join(dir, "out");
    const r = gpucheck(["suite", "suite.yaml", "--out", out, "--progress", "none"], { cwd: dir, timeoutMs: 240_000 });
    expect(r.status).toBe(3); // an error outranks a failure: something was not measured
    const results = JSON.parse(readFileSync(join(out, "results.json"), "utf8")) as ResultsFile;

    const healthy = results.tests[0]!.units[0]!;
    expect(healthy.measurement!.metrics.burn_checksum_mismatches).toBe(0);
    const checks = checksOf(results, 0);
    const mism = checks.filter((c) => c.metric === "burn_gpu_checksum_mismatches");
    expect(mism.map((c) => [c.part?.rank, c.ok, c.measured])).toEqual([
      [0, true, 0],
      [1, true, 0],
    ]);
    const temp = checks.filter((c) => c.metric === "burn_gpu_temp_max_c");
    expect(temp.map((c) => [c.part?.rank, c.ok, c.measured])).toEqual([
      [0, false, null],
      [1, false, null],
    ]);
    for (const c of temp) expect(c.message).toContain("burn_gpu_temp_max_c unmeasured: a CPU rank: no GPU clock, temperature, power or clock event reason to read");
    expect(healthy.verdict.outcome).toBe("error");

    const corrupt = checksOf(results, 1).filter((c) => c.metric === "burn_gpu_checksum_mismatches");
    expect(corrupt.map((c) => [c.part?.rank, c.ok, c.measured])).toEqual([
      [0, true, 0],
      [1, false, 2],
    ]);
    expect(results.tests[1]!.units[0]!.verdict.outcome).toBe("failed");
    expect(results.tests[1]!.units[0]!.measurement!.details!.burn_checksum_mismatches).toMatch(
      / rank 1 \(CPU[^)]*\): 2 of \d+ checks differed \(2 from its own first product, 2 from its model's majority, 2 with no majority among its model\)/,
    );
  }, 240_000);
});
