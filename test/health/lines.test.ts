// A health run's lines from a results file: the project's results fixtures (test/fixtures/results/,
// verdicts from the real judge) as a health run would have produced them.
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { healthVerdict } from "../../lib/health/lines.ts";
import type { ResultsFile } from "../../lib/core/types.ts";

const results = (name: string) => JSON.parse(readFileSync(join(import.meta.dir, "..", "fixtures", "results", `${name}.json`), "utf8")) as ResultsFile;

describe("healthVerdict", () => {
  test("a run whose every judged test passed is healthy, with no line", () => {
    expect(healthVerdict(results("passing"), "gpu07")).toEqual({ healthy: true, failures: [] });
  });

  test("a missed threshold: the host, the test and the judge's own words", () => {
    expect(healthVerdict(results("failing-threshold"), "gpu07").failures).toEqual(["gpu-01: nvlink-allreduce: busbw 477.2 GB/s at 8 GiB < 100000 GB/s expected (-100%)"]);
    expect(healthVerdict(results("per-node"), "gpu07").failures).toEqual(["gpu-03: nvlink-allreduce: busbw 181.3 GB/s at 8 GiB < 400 GB/s expected (-55%)"]);
  });

  test("a test that could not measure is a line saying why", () => {
    expect(healthVerdict(results("error-killed"), "gpu07").failures).toEqual([
      "gpu-01: nvlink-allreduce: error: output incomplete: the workload output ended before its summary (hung, killed or crashed): rank 3 killed by signal SIGKILL",
      "gpu-01: resnet18-fashionmnist: error: timed out: no result after 600 s; killed 8 ranks",
    ]);
  });

  test("preflight's finding, then each test it kept from running, unmeasured", () => {
    expect(healthVerdict(results("preflight-failed"), "gpu07")).toEqual({
      healthy: false,
      failures: [
        "gpu-02: preflight: 7 GPUs visible to torch 2.5.1+cu124 (7 × NVIDIA H100 80GB HBM3), nvidia-smi lists 7 × NVIDIA H100 80GB HBM3: gpusPerNode 8 needed by nvlink-allreduce",
        "gpu07: nvlink-allreduce: not run (preflight failed, see above): unmeasured, so not healthy",
        "gpu07: inventory: not run (preflight failed, see above): unmeasured, so not healthy",
      ],
    });
  });

  test("an unfinished run, or one that judged nothing, is never healthy", () => {
    const unfinished = { ...results("passing"), complete: false };
    expect(healthVerdict(unfinished, "gpu07").failures).toEqual(["gpu07: the health run did not finish: its verdict is not a pass"]);
    const r = results("passing");
    const recorded = { ...r, tests: r.tests.map((t) => ({ ...t, units: t.units.map((u) => ({ ...u, verdict: { ...u.verdict, checks: [] } })) })) };
    expect(healthVerdict(recorded, "gpu07").failures).toEqual([`gpu07: suite ${r.suite.name} judged nothing (no test has a threshold): give --suite one that checks the node`]);
  });
});
