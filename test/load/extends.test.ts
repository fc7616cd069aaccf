// `extends`: merge rules (RFC 7386 merge patch, tests by name, expect entries whole) and the
// errors of a chain, each pointing into the file that caused it.
import { describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { builtinSuites } from "../../lib/core/assets.ts";
import { KIND_NAMES } from "../../lib/kinds/mod.ts";
import { load, problems } from "./_load.ts";

const BASE = `name: base
description: the parent
platform:
  type: slurm
  slurm: { partition: gpu, account: acme }
defaults:
  nodes: 2
  env: { NCCL_DEBUG: WARN, NCCL_IB_HCA: mlx5 }
tests:
  - name: ar
    kind: collective
    env: { NCCL_ALGO: Ring }
    collective: { minBytes: 1MiB, maxBytes: 1GiB, iters: 50 }
    expect:
      busbw: { min: 300 GB/s, max: 500 GB/s }
      wrong: { max: 0 }
  - name: inv
    kind: inventory
    expect:
      gpu_count: { min: 8 }
  - name: rn
    kind: train
`;

describe("merge", () => {
  test("child values override, maps merge key by key, null deletes, tests merge by name", async () => {
    const child = `name: child
extends: base.yaml
platform:
  slurm: { account: null, qos: high }
defaults:
  nodes: 4
  env: { NCCL_IB_HCA: mlx5_0 }
remove: [inv]
tests:
  - name: ar
    collective: { maxBytes: 8GiB }
    expect:
      busbw: { min: 350 GB/s }
      wrong: null
  - name: extra
    kind: inventory
`;
    const s = await load({ "child.yaml": child, "base.yaml": BASE });
    expect(s.name).toBe("child");
    expect(s.description).toBe("the parent");
    expect(s.platform).toEqual({ type: "slurm", settings: { slurm: expect.objectContaining({ partition: "gpu", qos: "high" }) } });
    expect((s.platform.settings.slurm as Record<string, unknown>).account).toBeUndefined();
    expect(s.tests.map((t) => t.name)).toEqual(["ar", "rn", "extra"]);
    const ar = s.tests[0];
    expect(ar.nodes).toBe(4);
    expect(ar.env).toEqual({ NCCL_DEBUG: "WARN", NCCL_IB_HCA: "mlx5_0", NCCL_ALGO: "Ring" });
    expect(ar.collective).toMatchObject({ minBytes: 1 << 20, maxBytes: 8 * 1024 ** 3, iters: 50 });
    // the expect entry is replaced whole: the parent's max is gone, and `wrong: null` dropped it
    expect(ar.expect).toEqual([{ metric: "busbw", unit: "GB/s", min: 350, text: "busbw: min 350 GB/s" }]);
  });

  test("extends and remove are not inherited; the chain's files are recorded with their hashes", async () => {
    const files = { "c.yaml": "name: c\nextends: b.yaml\n", "b.yaml": "name: b\nextends: base.yaml\nremove: [inv]\n", "base.yaml": BASE };
    const s = await load(files);
    expect(s.tests.map((t) => t.name)).toEqual(["ar", "rn"]);
    const sha = (text: string) => createHash("sha256").update(text).digest("hex");
    expect(s.source).toEqual({
      path: "c.yaml",
      sha256: sha(files["c.yaml"]),
      builtin: false,
      parents: [
        { path: "b.yaml", sha256: sha(files["b.yaml"]), builtin: false },
        { path: "base.yaml", sha256: sha(files["base.yaml"]), builtin: false },
      ],
    });
  });

  test("a relative extends starts from the extending file's directory", async () => {
    const s = await load({ "conf/site.yaml": "name: site\nextends: ../shared/base.yaml\n", "shared/base.yaml": BASE });
    expect(s.source.parents?.[0].path).toBe("shared/base.yaml");
    expect(s.tests).toHaveLength(3);
  });

  test("a built-in parent, overriding one threshold and the node count", async () => {
    const s = await load({
      "site.yaml": "name: site\nextends: h100-multinode\ndefaults: { nodes: 16 }\ntests:\n  - name: fabric-allreduce\n    expect: { busbw: { min: 380 GB/s } }\n",
    });
    expect(s.tests.every((t) => t.nodes === 16)).toBe(true);
    const ar = s.tests.find((t) => t.name === "fabric-allreduce")!;
    expect(ar.expect.map((e) => [e.metric, e.min ?? e.max ?? e.transport?.require])).toEqual([
      ["busbw", 380],
      ["wrong", 0],
      ["out_of_bounds", 0],
      ["transport", ["NET/IB", "GDRDMA"]],
      ["xid_hardware", 0],
      ["throttle_hw", 0],
      ["throttle_sw_thermal", 0],
      ["ib_link_downed", 0],
      ["nvlink_errors", 0],
    ]);
    expect(ar.env.NCCL_ALGO).toBe("Ring");
    const text = builtinSuites().get("h100-multinode")!.text;
    expect(s.source.parents).toEqual([{ path: "builtin:h100-multinode.yaml", sha256: createHash("sha256").update(text).digest("hex"), builtin: true }]);
  });
});

describe("errors", () => {
  test("a name that is no built-in and no file", async () => {
    expect(await problems({ "child.yaml": "name: c\nextends: foo\n" })).toBe(`child.yaml:2:10: extends "foo" does not resolve: no built-in suite "foo" and no file ./foo
  extends: foo
           ^`);
  });

  test("a close built-in name is suggested", async () => {
    expect(
      await problems({ "child.yaml": "name: c\nextends: h100-9x\n" }),
    ).toBe(`child.yaml:2:10: extends "h100-9x" does not resolve: no built-in suite "h100-9x" and no file ./h100-9x: did you mean "h100-8x"?
  extends: h100-9x
           ^`);
  });

  test("a missing file", async () => {
    expect(await problems({ "child.yaml": "name: c\nextends: ../base.yaml\n" })).toBe(`child.yaml:2:10: extends "../base.yaml" does not resolve: no file ../base.yaml
  extends: ../base.yaml
           ^`);
  });

  test("a parent that is a directory", async () => {
    expect(
      await problems({ "child.yaml": "name: c\nextends: sub\n", "sub/x.yaml": "" }),
    ).toBe(`child.yaml:2:10: extends "sub" does not resolve: cannot read the suite file "./sub": it is a directory (EISDIR): give the path of a file, or choose another suite file
  extends: sub
           ^`);
  });

  test("a loop through two files", async () => {
    const files = { "a.yaml": "name: a\nextends: b.yaml\n", "b.yaml": "name: b\nextends: a.yaml\ntests:\n  - { name: x, kind: inventory }\n" };
    expect(await problems(files)).toBe(`b.yaml:2:10: extends loop: a.yaml → b.yaml → a.yaml
  extends: a.yaml
           ^`);
  });

  test("a file extending itself", async () => {
    expect(await problems({ "a.yaml": "name: a\nextends: a.yaml\n" })).toBe(`a.yaml:2:10: extends loop: a.yaml → a.yaml
  extends: a.yaml
           ^`);
  });

  test("extends that is not text", async () => {
    expect(await problems({ "a.yaml": "name: a\nextends: [b.yaml]\n" })).toBe(`a.yaml:2:10: "extends" must be the name of a built-in suite or a file path, got a list
  extends: [b.yaml]
           ^`);
  });

  test("a YAML error in the parent is reported in the parent", async () => {
    const files = { "a.yaml": "name: a\nextends: base/b.yaml\n", "base/b.yaml": "name: b\ntests:\n  - name: x\n   kind: inventory\n" };
    expect(await problems(files)).toBe(`base/b.yaml:4:1: invalid YAML: sequence item without - indicator
     kind: inventory
  ^`);
  });

  test("problems in child and parent together, each in its own file, child first", async () => {
    const files = {
      "a.yaml": "name: a\nextends: b.yaml\ntests:\n  - name: x\n    nodes: 0\n",
      "b.yaml": "name: b\ntests:\n  - name: x\n    kind: collective\n    expect:\n      samples_per_s: { min: 1 }\n",
    };
    expect(await problems(files)).toBe(`a.yaml:5:12: "nodes" must be a positive integer, got 0
      nodes: 0
             ^
b.yaml:6:7: metric "samples_per_s" is not produced by kind "collective": expected one of busbw, algbw, time_us, busbw_peak, busbw_avg, wrong, out_of_bounds, gpu_temp_max, gpu_power_max, gpu_util_mean, xid_hardware, xid_application, xid_events, throttle_hw, throttle_sw_thermal, throttle_sw_power_cap, throttle_events, sm_clock_min_mhz, ib_link_downed, ib_port_errors, nvlink_errors, rail_busbw, transport
        samples_per_s: { min: 1 }
        ^`);
  });

  test("remove naming tests the parent does not have", async () => {
    const files = { "a.yaml": "name: a\nextends: b.yaml\nremove: [invv, 3]\n", "b.yaml": "name: b\ntests:\n  - { name: inv, kind: inventory }\n" };
    expect(await problems(files)).toBe(`a.yaml:3:10: remove "invv" does not name a test of the parent suite: did you mean "inv"?
  remove: [invv, 3]
           ^
a.yaml:3:16: remove 3 does not name a test of the parent suite: its tests are inv
  remove: [invv, 3]
                 ^`);
  });

  test("a new test in the child still needs a kind", async () => {
    const files = { "a.yaml": "name: a\nextends: b.yaml\ntests:\n  - name: new\n    nodes: 2\n", "b.yaml": "name: b\ntests:\n  - { name: x, kind: inventory }\n" };
    expect(await problems(files)).toBe(`a.yaml:4:5: missing required key "kind": expected one of ${KIND_NAMES.join(", ")}
    - name: new
      ^`);
  });

  test("a conflict the child creates with a built-in parent points into the child", async () => {
    const child =
      "name: a\nextends: h100-8x\ntests:\n  - name: nvlink-allreduce\n    expect:\n      busbw@3GiB: { min: 300 GB/s }\n  - name: resnet50-synthetic\n    train: { steps: 10 }\n";
    expect(await problems({ "a.yaml": child })).toBe(`a.yaml:6:7: size 3GiB in "busbw@3GiB" is not measured by the sweep 8B…8GiB by factor 2: nearest sizes are 2GiB and 4GiB
        busbw@3GiB: { min: 300 GB/s }
        ^
a.yaml:8:21: "warmupSteps" (30) must be less than "steps" (10): throughput is measured after warm-up
      train: { steps: 10 }
                      ^`);
  });
});
