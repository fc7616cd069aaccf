// The gemm block's bad values: exactly what `gpucheck validate` prints for each (exit 2).
import { describe } from "bun:test";
import { rejects } from "../load/_load.ts";

const suite = (block: string, expect = "") => `
name: s
tests:
  - name: a
    kind: gemm
    gemm: ${block}${expect}
`;

describe("gemm block", () => {
  rejects([
    [
      "a dtype gemm does not know",
      suite("{ dtypes: [bf16, int8] }"),
      `
suite.yaml:5:28: invalid dtype "int8": expected one of bf16, fp16, tf32, fp8, fp32
      gemm: { dtypes: [bf16, int8] }
                             ^
`,
    ],
    [
      "an empty dtype list",
      suite("{ dtypes: [] }"),
      `
suite.yaml:5:21: "dtypes" must list at least one of bf16, fp16, tf32, fp8, fp32
      gemm: { dtypes: [] }
                      ^
`,
    ],
    [
      "dtypes that are not a list",
      suite("{ dtypes: bf16 }"),
      `
suite.yaml:5:21: "dtypes" must be a list of dtypes (bf16, fp16, tf32, fp8, fp32)
      gemm: { dtypes: bf16 }
                      ^
`,
    ],
    [
      "a dtype listed twice",
      suite("{ dtypes: [fp8, bf16, fp8] }"),
      `
suite.yaml:5:21: "dtypes" lists "fp8" more than once
      gemm: { dtypes: [fp8, bf16, fp8] }
                      ^
`,
    ],
    [
      "a sweep that starts above its end",
      suite("{ minSize: 8192, maxSize: 4096 }"),
      `
suite.yaml:5:22: "minSize" (8192) must not exceed "maxSize" (4096)
      gemm: { minSize: 8192, maxSize: 4096 }
                       ^
`,
    ],
    [
      "a CPU sweep whose written minSize passes the default CPU maxSize",
      `
name: s
defaults: { gpusPerNode: 0, ranksPerNode: 2 }
tests:
  - name: a
    kind: gemm
    gemm: { minSize: 1024 }
`,
      `
suite.yaml:6:22: "minSize" (1024) must not exceed "maxSize" (512)
      gemm: { minSize: 1024 }
                       ^
`,
    ],
    [
      "a negative warm-up",
      suite("{ warmupSeconds: -5 }"),
      `
suite.yaml:5:28: "warmupSeconds" must be a non-negative integer, got -5
      gemm: { warmupSeconds: -5 }
                             ^
`,
    ],
    [
      "a misspelt key",
      suite("{ stepp: 256 }"),
      `
suite.yaml:5:13: unknown key "stepp": did you mean "step"?
      gemm: { stepp: 256 }
              ^
`,
    ],
    [
      "a threshold on a dtype the test does not measure",
      suite("{ dtypes: [bf16] }", "\n    expect:\n      gemm_fp8_tflops_min: { min: 1000 TFLOP/s }\n      gemm_fp16_median_min: { min: 500 TFLOP/s }"),
      `
suite.yaml:7:7: metric "gemm_fp8_tflops_min" needs dtype "fp8" in "dtypes"
        gemm_fp8_tflops_min: { min: 1000 TFLOP/s }
        ^
suite.yaml:8:7: metric "gemm_fp16_median_min" needs dtype "fp16" in "dtypes"
        gemm_fp16_median_min: { min: 500 TFLOP/s }
        ^
`,
    ],
  ]);
});
