// --budget through the CLI: `suite` refuses before anything runs (no results directory), `plan`
// says the margin of a plan that fits and the total it compared, and why a stale measured total is not it.
import { expect, test } from "bun:test";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { gpucheckRun, tempDir } from "../e2e/cli.ts";

test("suite --budget: a plan that cannot fit exits 2 with one line naming what to drop, and runs nothing", async () => {
  const cwd = tempDir("gpucheck-budget-");
  const r = await gpucheckRun(["suite", "cpu-smoke", "--budget", "5m"], { cwd });
  expect(r.stderr).toBe(
    "gpucheck: suite: suite cpu-smoke is expected to take 11m04s (estimated: the sum of the 3 tests' estimates), over --budget 5m00s by 6m04s; to fit, drop resnet18-fashionmnist (10m00s)\n",
  );
  expect(r.status).toBe(2);
  expect(existsSync(join(cwd, "gpucheck-results"))).toBe(false);
});

test("plan --budget: a plan that fits says its total and margin; gpu-1x's measured total ran other commands (an older gemm sweep), so it is estimated", async () => {
  const r = await gpucheckRun(["plan", "gpu-1x", "--budget", "30m"]);
  expect(r.status).toBe(0);
  expect(r.stderr).toBe("gpucheck: expected total 4m38s fits --budget 30m00s with 25m22s to spare\n");
  expect(r.stdout).toContain(
    "\nexpected total 4m38s (estimated: the sum of the 8 tests' estimates; the measured 3m54s (BENCHMARKS.md) launched other commands, so it is not used)\n",
  );
  expect(r.stdout).toContain(
    `   expected: 2m10s (estimated from burn.duration (120s of load, plus a warm-up of 3 iterations), plus 10s start-up derived from gpu-1x's measured wall (BENCHMARKS.md "GPU figures"))\n`,
  );
});

test("a suite file that takes the name gpu-1x is estimated, never given the built-in suite's measured total", async () => {
  const cwd = tempDir("gpucheck-budget-own-");
  writeFileSync(join(cwd, "gpu-1x.yaml"), "name: gpu-1x\nextends: gpu-1x\n");
  const r = await gpucheckRun(["plan", join(cwd, "gpu-1x.yaml")]);
  expect(r.status).toBe(0);
  expect(r.stdout).toContain("\nexpected total ");
  expect(r.stdout).not.toContain("measured: BENCHMARKS.md");
  expect(r.stdout).toContain("(estimated: the sum of the 8 tests' estimates)");
});
