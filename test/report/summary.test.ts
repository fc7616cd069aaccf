import { describe, expect, test } from "bun:test";
import { renderSummary } from "../../lib/report/summary.ts";
import { FIXTURES } from "../fixtures/results/fixtures.ts";

describe("renderSummary", () => {
  test("per-node run: a row per node with verdict, headline against threshold and duration; then the failing host and why", () => {
    expect(renderSummary(FIXTURES["per-node"](), { color: false })).toBe(
      [
        "gpucheck h100-8x on acme-h100-a (ssh): FAILED: 6 passed, 1 failed, 1 skipped",
        "",
        "TEST              UNIT    VERDICT  HEADLINE                   THRESHOLD   DURATION",
        "nvlink-allreduce  gpu-01  PASSED   busbw 475.2 GB/s at 8 GiB  ≥ 400 GB/s  1m20s",
        "nvlink-allreduce  gpu-02  PASSED   busbw 478.2 GB/s at 8 GiB  ≥ 400 GB/s  1m21s",
        "nvlink-allreduce  gpu-03  FAILED   busbw 181.3 GB/s at 8 GiB  ≥ 400 GB/s  1m22s",
        "nvlink-allreduce  gpu-04  PASSED   busbw 473.2 GB/s at 8 GiB  ≥ 400 GB/s  1m23s",
        "ib-allreduce      gpu-01  PASSED   busbw 47.23 GB/s at 8 GiB  ≥ 40 GB/s   1m10s",
        "ib-allreduce      gpu-02  PASSED   busbw 47.23 GB/s at 8 GiB  ≥ 40 GB/s   1m10s",
        "ib-allreduce      gpu-03  PASSED   busbw 47.23 GB/s at 8 GiB  ≥ 40 GB/s   1m10s",
        "ib-allreduce      gpu-04  SKIPPED  busbw —                    ≥ 40 GB/s   0.000 s",
        "",
        "Failing hosts:",
        "  gpu-03  nvlink-allreduce: failed: busbw 181.3 GB/s at 8 GiB < 400 GB/s expected (-55%)",
        "",
        "Skipped:",
        '  gpu-04  ib-allreduce: skipped: node gpu-04 is drained: reason="bad HCA"',
        "",
      ].join("\n"),
    );
  });

  test("errors: no headline number when nothing was measured, the reason on one line", () => {
    const text = renderSummary(FIXTURES["error-killed"](), { color: false });
    expect(text).toContain("resnet18-fashionmnist  all   ERROR    samples_per_s —              ≥ 2000 samples/s  10m00s");
    expect(text).toContain("  gpu-01  resnet18-fashionmnist: error: timed out: no result after 600 s; killed 8 ranks");
    expect(text.split("\n")[0]).toBe("gpucheck h100-8x on acme-h100-a (ssh): ERROR: 2 errors");
  });

  test("colour only when asked, and only on the verdicts; columns stay aligned", () => {
    const plain = renderSummary(FIXTURES["per-node"](), { color: false });
    expect(plain).not.toContain("\x1b");
    const coloured = renderSummary(FIXTURES["per-node"](), { color: true });
    expect(coloured).toContain("\x1b[31mFAILED \x1b[0m");
    expect(coloured).toContain("\x1b[32mPASSED \x1b[0m");
    expect(coloured.replace(/\x1b\[[0-9;]*m/g, "")).toBe(plain);
  });

  test("log text in a reason cannot inject escape codes or break the table", () => {
    const text = renderSummary(FIXTURES["hostile-tail"](), { color: false });
    expect(text).not.toMatch(/[\x00-\x09\x0b-\x1f]/);
    expect(text).toContain('  gpu-01  nvlink-allreduce: error: crashed before reporting results: rank 1 exited 1: boom "quoted" <x> & ]]>\n');
  });

  test("an interrupted run says so", () => {
    expect(renderSummary({ ...FIXTURES.passing(), complete: false }, { color: false })).toEndWith("\nRun incomplete: 3 tests of 3 started before it stopped.\n");
  });
});
