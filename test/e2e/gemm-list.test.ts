// `gpucheck list` shows the gemm kind, its block's keys and its metrics, as the registry describes them.
import { expect, test } from "bun:test";
import { gpucheck, tempDir } from "./cli.ts";

test("list: the gemm kind with its metrics", () => {
  const r = gpucheck(["list"], { cwd: tempDir("gemm-list"), timeoutMs: 60_000 });
  expect(r.status).toBe(0);
  expect(r.stdout).toContain("\nMetrics of kind gemm:\n  gemm_bf16_tflops_min     TFLOP/s    higher is better  bf16 matmul: the lowest per-GPU best TFLOP/s over the shape sweep");
  expect(r.stdout).toContain("\n  gemm_checksum_mismatches count      lower is better   ranks whose hash of the checksum product differs from the majority");
  expect(r.stdout).toContain("\n  gemm_fp8_median_min      TFLOP/s    higher is better  fp8 matmul: the lowest per-GPU median TFLOP/s over the shape sweep\n");
}, 60_000);
