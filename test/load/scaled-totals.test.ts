// A child suite that changes nodes or GPUs under an inherited absolute total (samples_per_s of the
// job, gpu_count of a node): a warning from validate and plan, exit 0, naming the test, the
// threshold, the line that wrote it and the line that changed the shape.
import { expect, test } from "bun:test";
import { gpucheckRun } from "../e2e/cli.ts";
import { workdir } from "./_load.ts";
import { loadSuiteWarnings } from "../../lib/load/mod.ts";
import { formatWarning } from "../../lib/core/errors.ts";

const SLOW = 60_000;
const TWO_NODES = "name: two-nodes\nextends: h100-8x\ndefaults:\n  nodes: 2\n";

async function warnings(files: Record<string, string>): Promise<string[]> {
  const cwd = workdir(files);
  const { warnings } = await loadSuiteWarnings(Object.keys(files)[0]!, { cwd });
  return warnings.map(formatWarning);
}

test("raising nodes to 2 names every inherited job total, where it was written and where nodes changed", async () => {
  expect(await warnings({ "two.yaml": TWO_NODES })).toEqual([
    `two.yaml:4:10: warning: test "resnet18-fashionmnist" now runs on 2 nodes × 8 GPUs, but its samples_per_s threshold { min: 15400 img/s } (builtin:h100-8x.yaml:143) was written for 1 node × 8 GPUs and is an absolute total: override it for 16 GPUs, or make it relative with "baseline"
    nodes: 2
           ^`,
    `two.yaml:4:10: warning: test "resnet50-synthetic" now runs on 2 nodes × 8 GPUs, but its samples_per_s threshold { min: 15400 img/s } (builtin:h100-8x.yaml:156) was written for 1 node × 8 GPUs and is an absolute total: override it for 16 GPUs, or make it relative with "baseline"
    nodes: 2
           ^`,
    `two.yaml:4:10: warning: test "transformer-bandwidth" now runs on 2 nodes × 8 GPUs, but its tflops threshold { min: 1180 TFLOP/s } (builtin:h100-8x.yaml:172) was written for 1 node × 8 GPUs and is an absolute total: override it for 16 GPUs, or make it relative with "baseline"
    nodes: 2
           ^`,
  ]);
});

test("fewer GPUs per node: job totals and a node's gpu_count; per-node tests ignore nodes", async () => {
  const suite =
    "name: four\nextends: h100-8x\nremove: [resnet18-fashionmnist, transformer-bandwidth]\ntests:\n  - name: resnet50-synthetic\n    gpusPerNode: 4\n  - name: inventory\n    gpusPerNode: 4\n";
  expect(await warnings({ "four.yaml": suite })).toEqual([
    `four.yaml:8:18: warning: test "inventory" now runs on 4 GPUs per node, but its gpu_count threshold { min: 8 } (builtin:h100-8x.yaml:28) was written for 8 GPUs per node and is an absolute total: override it for 4 GPUs per node, or make it relative with "baseline"
      gpusPerNode: 4
                   ^`,
    `four.yaml:6:18: warning: test "resnet50-synthetic" now runs on 1 node × 4 GPUs, but its samples_per_s threshold { min: 15400 img/s } (builtin:h100-8x.yaml:156) was written for 1 node × 8 GPUs and is an absolute total: override it for 4 GPUs, or make it relative with "baseline"
      gpusPerNode: 4
                   ^`,
  ]);
});

test("no warning when the child restates the threshold, keeps the shape, or the test runs per node", async () => {
  const restated =
    "name: s\nextends: h100-8x\nremove: [resnet18-fashionmnist, transformer-bandwidth]\ndefaults:\n  nodes: 2\ntests:\n  - name: resnet50-synthetic\n    expect:\n      samples_per_s: { min: 30800 img/s }\n";
  expect(await warnings({ "s.yaml": restated })).toEqual([]);
  expect(await warnings({ "same.yaml": "name: same\nextends: h100-8x\ndefaults:\n  nodes: 1\n  gpusPerNode: 8\n" })).toEqual([]);
  // inventory runs on each node alone: more nodes leave each node's gpu_count as it was
  expect(
    await warnings({ "inv.yaml": "name: inv\nextends: h100-8x\nremove: [resnet18-fashionmnist, resnet50-synthetic, transformer-bandwidth]\ndefaults:\n  nodes: 4\n" }),
  ).toEqual([]);
  // a relative threshold scales with its baseline
  const relative = "name: r\nextends: base.yaml\ndefaults:\n  nodes: 2\n";
  const base =
    "name: base\ndefaults: { nodes: 1, gpusPerNode: 8 }\ntests:\n  - name: t\n    kind: train\n    train: { model: resnet50, data: synthetic }\n    expect:\n      samples_per_s: { baseline: 0.9 }\n";
  expect(await warnings({ "r.yaml": relative, "base.yaml": base })).toEqual([]);
});

test(
  "validate and plan print the warning on stderr and exit 0; validate --json carries it",
  async () => {
    const cwd = workdir({ "two.yaml": TWO_NODES });
    const first =
      'two.yaml:4:10: warning: test "resnet18-fashionmnist" now runs on 2 nodes × 8 GPUs, but its samples_per_s threshold { min: 15400 img/s } (builtin:h100-8x.yaml:143)';
    const v = await gpucheckRun(["validate", "two.yaml"], { cwd });
    expect(v.status).toBe(0);
    expect(v.stdout).toBe(
      'two.yaml: valid: suite "two-nodes", 14 tests (1 inventory, 3 collective, 3 train, 1 membw, 1 pcie, 1 gemm, 1 burn, 1 nvlink, 1 dcgm, 1 nic-loopback), platform local, extends builtin:h100-8x.yaml; 3 warnings\n',
    );
    expect(v.stderr).toStartWith(first);
    const p = await gpucheckRun(["plan", "two.yaml", "--json"], { cwd });
    expect(p.status).toBe(0);
    expect(p.stderr).toStartWith(first);
    expect(JSON.parse(p.stdout).tests.length).toBe(14);
    const j = await gpucheckRun(["validate", "two.yaml", "--json"], { cwd });
    expect(j.status).toBe(0);
    expect(JSON.parse(j.stdout).warnings[0]).toEqual({
      path: "two.yaml",
      line: 4,
      col: 10,
      message:
        first.slice("two.yaml:4:10: warning: ".length) + ' was written for 1 node × 8 GPUs and is an absolute total: override it for 16 GPUs, or make it relative with "baseline"',
    });
  },
  SLOW,
);
