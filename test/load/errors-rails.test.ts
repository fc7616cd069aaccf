// `rails:` in a collective block and `rail_busbw` thresholds: each bad input and exactly what
// `gpucheck validate` prints; and the good forms as the test resolves them.
import { describe, expect, test } from "bun:test";
import { load, rejects } from "./_load.ts";

describe("collective rails", () => {
  rejects([
    [
      "an empty rail list",
      `
name: s
tests:
  - name: a
    kind: collective
    collective: { rails: [] }
`,
      `
suite.yaml:5:26: "rails" must be a list of HCA names such as [mlx5_0, mlx5_3] or "mlx5_0,mlx5_3", or "auto", got an empty list
      collective: { rails: [] }
                           ^
`,
    ],
    [
      "an HCA name with a blank, pointed at in the list",
      `
name: s
tests:
  - name: a
    kind: collective
    collective:
      rails: [mlx5_0, "mlx5 3"]
`,
      `
suite.yaml:6:23: invalid HCA name "mlx5 3": expected a device name such as mlx5_0, or mlx5_0:1 for one port
        rails: [mlx5_0, "mlx5 3"]
                        ^
`,
    ],
    [
      "a rail listed twice",
      `
name: s
tests:
  - name: a
    kind: collective
    collective:
      rails: [mlx5_0, mlx5_3, mlx5_0]
`,
      `
suite.yaml:6:31: rail "mlx5_0" is listed twice: each HCA is one rail
        rails: [mlx5_0, mlx5_3, mlx5_0]
                                ^
`,
    ],
    [
      "auto misspelt",
      `
name: s
tests:
  - name: a
    kind: collective
    collective: { rails: atuo }
`,
      `
suite.yaml:5:26: invalid rails "atuo": did you mean "auto"?
      collective: { rails: atuo }
                           ^
`,
    ],
    [
      "a number",
      `
name: s
tests:
  - name: a
    kind: collective
    collective: { rails: 8 }
`,
      `
suite.yaml:5:26: "rails" must be a list of HCA names such as [mlx5_0, mlx5_3] or "mlx5_0,mlx5_3", or "auto", got 8
      collective: { rails: 8 }
                           ^
`,
    ],
    [
      "rails on gloo",
      `
name: s
tests:
  - name: a
    kind: collective
    collective: { backend: gloo, rails: [mlx5_0] }
`,
      `
suite.yaml:5:34: "rails" needs NCCL, but backend is "gloo": NCCL_IB_HCA pins only NCCL's traffic, so no rail would be crossed
      collective: { backend: gloo, rails: [mlx5_0] }
                                   ^
`,
    ],
    [
      "rails without GPUs (a CPU suite)",
      `
name: s
tests:
  - name: a
    kind: collective
    gpusPerNode: 0
    ranksPerNode: 2
    collective: { rails: auto }
`,
      `
suite.yaml:7:19: "rails" needs NCCL, but "gpusPerNode" is 0: the collective runs on gloo, and NCCL_IB_HCA pins only NCCL's traffic, so no rail would be crossed
      collective: { rails: auto }
                    ^
`,
    ],
    [
      "rails with the official binaries",
      `
name: s
tests:
  - name: a
    kind: collective
    collective: { impl: nccl-tests, rails: [mlx5_0] }
`,
      `
suite.yaml:5:37: "rails" applies to impl "workload" only: it runs gpucheck's benchmark once per rail
      collective: { impl: nccl-tests, rails: [mlx5_0] }
                                      ^
`,
    ],
    [
      "a rail threshold on a collective without rails",
      `
name: s
tests:
  - name: a
    kind: collective
    expect:
      rail_busbw: { min: 46 GB/s }
`,
      `
suite.yaml:6:7: metric "rail_busbw" needs "rails" in the collective block
        rail_busbw: { min: 46 GB/s }
        ^
`,
    ],
  ]);
});

test("rails as a list, as NCCL_IB_HCA's own text, and auto", async () => {
  const rails = async (value: string) => {
    const s = await load({
      "suite.yaml": `name: s\ntests:\n  - name: a\n    kind: collective\n    collective: { rails: ${value} }\n    expect: { rail_busbw: { min: 46 GB/s, outlier: { below: 0.93 } } }\n`,
    });
    const t = s.tests[0]!;
    return t.kind === "collective" ? t.collective.rails : undefined;
  };
  expect(await rails("[mlx5_0, mlx5_3:1]")).toEqual(["mlx5_0", "mlx5_3:1"]);
  expect(await rails('"=mlx5_0,mlx5_3"')).toEqual(["mlx5_0", "mlx5_3"]);
  expect(await rails("auto")).toBe("auto");
});
