// The quick profiles of the 8-GPU suites (issue 28 item 8): each is its full suite with a 5-minute burn
// and DCGM level 2, less the tests docs/suites.md names, every other test and every threshold the full
// suite's own; and each plans on the five platforms as its full suite does.
import { describe, expect, test } from "bun:test";
import { PLATFORMS } from "../../cli/platforms.ts";
import type { CliOverrides } from "../../lib/core/platform.ts";
import type { TestSpec } from "../../lib/core/types.ts";
import { loadSuite } from "../../lib/load/mod.ts";
import { buildPlan } from "../../lib/plan/plan.ts";

const PROFILES: Array<[string, string, string[]]> = [
  ["h100-8x-quick", "h100-8x", ["resnet18-fashionmnist"]],
  ["h200-8x-quick", "h200-8x", ["resnet18-fashionmnist"]],
  ["b200-8x-quick", "b200-8x", ["resnet18-fashionmnist", "nvlink-ring-allreduce"]],
];

const IMAGE = "registry.example/gpucheck:1";
const ON: Array<[string, CliOverrides]> = [
  ["local", {}],
  ["ssh", { hosts: ["node-a"] }],
  ["slurm", {}],
  ["docker", { image: IMAGE }],
  ["k8s", { image: IMAGE }],
];

/** a test as a suite resolves it, less what only says where it came from */
const bare = (t: TestSpec) => ({ ...t, description: undefined });

for (const [name, full, dropped] of PROFILES) {
  describe(name, async () => {
    const quick = await loadSuite(name, { platforms: PLATFORMS });
    const parent = await loadSuite(full, { platforms: PLATFORMS });

    test(`${full}'s tests less ${dropped.join(", ")}; the burn 5 minutes, DCGM at level 2, each with a 10-minute timeout`, () => {
      expect(quick.tests.map((t) => t.name)).toEqual(parent.tests.map((t) => t.name).filter((n) => !dropped.includes(n)));
      const burn = quick.tests.find((t) => t.name === "burn")!;
      const dcgm = quick.tests.find((t) => t.name === "dcgm-diag")!;
      expect([burn.kind === "burn" && burn.burn.duration, burn.timeoutMs]).toEqual([300_000, 600_000]);
      expect([dcgm.kind === "dcgm" && dcgm.dcgm.level, dcgm.timeoutMs]).toEqual([2, 600_000]);
    });

    test(`every other test, and every threshold of the burn and DCGM, is ${full}'s own`, () => {
      for (const t of quick.tests) {
        const own = parent.tests.find((p) => p.name === t.name)!;
        expect({ name: t.name, expect: t.expect }).toEqual({ name: t.name, expect: own.expect });
        if (t.name !== "burn" && t.name !== "dcgm-diag") expect(bare(t)).toEqual(bare(own));
      }
    });

    test("plans on local, ssh, slurm, docker and k8s", () => {
      for (const [platform, cli] of ON) {
        const plan = buildPlan(quick, { platform, cli, platforms: PLATFORMS });
        expect({ platform, tests: plan.tests.length }).toEqual({ platform, tests: parent.tests.length - dropped.length });
        for (const t of plan.tests) expect(t.launch.args.slice(0, 2)).toEqual(["-m", "gpucheck_workload"]);
      }
    });
  });
}
