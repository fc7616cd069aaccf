// --budget through the CLI: `suite` refuses before anything runs (no results directory), `plan`
// says the margin of a plan that fits and shows the measured total it compared.
import { expect, test } from "bun:test";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { gpucheck, tempDir } from "../e2e/cli.ts";

test("suite --budget: a plan that cannot fit exits 2 with one line naming what to drop, and runs nothing", () => {
  const cwd = tempDir("gpucheck-budget-");
  const r = gpucheck(["suite", "cpu-smoke", "--budget", "15m"], { cwd });
  expect(r.stderr).toBe(
    "gpucheck: suite: suite cpu-smoke is expected to take 30m00s (estimated: the sum of the 3 tests' estimates), over --budget 15m00s by 15m00s; to fit, drop inventory (10m00s), allreduce-gloo (10m00s)\n",
  );
  expect(r.status).toBe(2);
  expect(existsSync(join(cwd, "gpucheck-results"))).toBe(false);
});

test("plan --budget: a plan that fits says its total and margin; the total is gpu-1x's measured one", () => {
  const r = gpucheck(["plan", "gpu-1x", "--budget", "30m"]);
  expect(r.status).toBe(0);
  expect(r.stderr).toBe("gpucheck: expected total 3m54s fits --budget 30m00s with 26m06s to spare\n");
  expect(r.stdout).toContain('\nexpected total 3m54s (measured: BENCHMARKS.md "GPU figures": the whole suite with preflight on one H100 80GB HBM3');
  expect(r.stdout).toContain("   expected: 2m00s (estimated from burn.duration (120s of load, plus a warm-up of 3 iterations))\n");
});

test("a suite file that takes the name gpu-1x is estimated, never given the built-in suite's measured total", () => {
  const cwd = tempDir("gpucheck-budget-own-");
  writeFileSync(join(cwd, "gpu-1x.yaml"), "name: gpu-1x\nextends: gpu-1x\n");
  const r = gpucheck(["plan", join(cwd, "gpu-1x.yaml")]);
  expect(r.status).toBe(0);
  expect(r.stdout).toContain("\nexpected total ");
  expect(r.stdout).not.toContain("measured: BENCHMARKS.md");
  expect(r.stdout).toContain("(estimated: the sum of the 8 tests' estimates)");
});
