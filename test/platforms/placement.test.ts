// Hosts are never silently unused: the plan names the host(s) each test runs on and the ones it
// leaves idle; --each-node and defaults.eachNode run one-node tests on every host; --nodes N.
// ssh plans need no sshd, so all of this runs anywhere.
import { describe, expect, test } from "bun:test";
import { hostname } from "node:os";
import { buildPlan } from "../../lib/plan/plan.ts";
import { renderPlanText } from "../../lib/plan/text.ts";
import { load } from "../load/_load.ts";
import { gpucheckRun } from "../e2e/cli.ts";

const SUITE = `
name: s
defaults: { gpusPerNode: 8 }
tests:
  - name: inventory
    kind: inventory
  - name: nccl-one
    kind: collective
  - name: fabric
    kind: collective
    nodes: 2
`;

const ssh = (hosts: string[], more: { nodes?: number; eachNode?: boolean } = {}) => ({ platform: "ssh", cli: { hosts }, ...more });

describe("placement in the plan", () => {
  test("a one-node test among 3 hosts runs on the first, names the others and says how to use them", async () => {
    const plan = buildPlan(await load({ "s.yaml": SUITE }), ssh(["gpu01", "gpu02", "gpu03"]));
    expect(plan.hosts).toEqual(["gpu01", "gpu02", "gpu03"]);
    const one = plan.tests.find((t) => t.name === "nccl-one")!;
    expect(one.placement).toEqual({
      hosts: ["gpu01"],
      unused: ["gpu02", "gpu03"],
      warning: 'test "nccl-one" runs on gpu01; gpu02, gpu03 unused: pass --each-node to run it on every host',
    });
    expect(plan.warnings).toEqual([
      'test "nccl-one" runs on gpu01; gpu02, gpu03 unused: pass --each-node to run it on every host',
      'test "fabric" runs on gpu01, gpu02; gpu03 unused: the test asks for 2 nodes (set its nodes: to 3 to use every host)',
    ]);
    expect(plan.tests.find((t) => t.name === "inventory")!.placement).toEqual({ hosts: ["gpu01", "gpu02", "gpu03"], unused: [] });
    const text = renderPlanText(plan);
    expect(text).toContain('\nhosts gpu01, gpu02, gpu03\nwarning: test "nccl-one" runs on gpu01; gpu02, gpu03 unused: pass --each-node to run it on every host\n');
    expect(text).toContain("2. nccl-one  [collective]  1 node(s) × 8 ranks (world 8), 8 GPU(s)/node, timeout 900s\n   runs on: gpu01; unused: gpu02, gpu03\n");
    expect(text).toContain("1. inventory  [inventory]  per node on 3 host(s) × 1 ranks (world 1), 8 GPU(s)/node, timeout 900s\n   runs on: gpu01, gpu02, gpu03\n");
  });

  test("a multi-node test whose nodes come from defaults points at --nodes", async () => {
    const plan = buildPlan(await load({ "s.yaml": "name: s\ndefaults: { nodes: 2 }\ntests:\n  - { name: fabric, kind: collective }\n" }), ssh(["a", "b", "c", "d"]));
    expect(plan.warnings).toEqual(['test "fabric" runs on a, b; c, d unused: the suite asks for 2 nodes (pass --nodes 4 to use every host)']);
  });

  test("as many hosts as nodes: no warning", async () => {
    const plan = buildPlan(await load({ "s.yaml": SUITE }), ssh(["gpu01", "gpu02"], { nodes: 2 }));
    expect(plan.warnings).toEqual([]);
    expect(plan.tests.map((t) => t.placement!.hosts)).toEqual([0, 1, 2].map(() => ["gpu01", "gpu02"]));
  });

  test("local: one host, every node on it, nothing unused", async () => {
    const plan = buildPlan(await load({ "s.yaml": SUITE }), { platform: "local", cli: {} });
    expect(plan.hosts).toEqual([hostname()]);
    expect(plan.warnings).toEqual([]);
    expect(plan.tests.map((t) => t.placement)).toEqual([0, 1, 2].map(() => ({ hosts: [hostname()], unused: [] })));
  });

  test("k8s learns its nodes at run time: no placement, no warning", async () => {
    const plan = buildPlan(await load({ "s.yaml": SUITE }), { platform: "k8s", cli: { image: "img" } });
    expect(plan.hosts).toBeUndefined();
    expect(plan.tests.map((t) => t.placement)).toEqual([undefined, undefined, undefined]);
    expect(renderPlanText(plan)).toContain("1. inventory  [inventory]  per node on every node × 1 ranks");
  });

  test("slurm with a node list: the list, expanded; without one: unknown", async () => {
    const suite = await load({ "s.yaml": SUITE });
    const listed = buildPlan(suite, { platform: "slurm", cli: { hosts: ["gpu[01-03]"] } });
    expect(listed.hosts).toEqual(["gpu01", "gpu02", "gpu03"]);
    expect(listed.warnings[0]).toBe('test "nccl-one" runs on gpu01; gpu02, gpu03 unused: pass --each-node to run it on every host');
    expect(buildPlan(suite, { platform: "slurm", cli: {} }).hosts).toBeUndefined();
  });

  test("docker: several engines are one node each; a single engine holds every node", async () => {
    const suite = await load({ "s.yaml": SUITE });
    expect(buildPlan(suite, { platform: "docker", cli: { hosts: ["h1", "h2"] } }).warnings).toHaveLength(1);
    const one = buildPlan(suite, { platform: "docker", cli: { hosts: ["unix:///var/run/docker.sock"] } });
    expect(one.warnings).toEqual([]);
    expect(one.tests[2]!.placement).toEqual({ hosts: ["localhost"], unused: [] });
  });
});

describe("--each-node and defaults.eachNode", () => {
  test("every one-node test becomes per-node on every host; multi-node tests stay as they are", async () => {
    const plan = buildPlan(await load({ "s.yaml": SUITE }), ssh(["gpu01", "gpu02"], { eachNode: true }));
    expect(plan.tests.map((t) => [t.name, t.perNode, t.worldSize])).toEqual([
      ["inventory", true, 1],
      ["nccl-one", true, 8],
      ["fabric", false, 16],
    ]);
    const one = plan.tests[1]!;
    expect(one.placement).toEqual({ hosts: ["gpu01", "gpu02"], unused: [] });
    expect((one.rendered as { units: Array<{ unit: string }> }).units.map((u) => u.unit)).toEqual(["gpu01", "gpu02"]);
    expect(plan.warnings).toEqual([]);
  });

  test("defaults: { eachNode: true } does the same from the suite", async () => {
    const plan = buildPlan(await load({ "s.yaml": SUITE.replace("gpusPerNode: 8", "gpusPerNode: 8, eachNode: true") }), ssh(["gpu01", "gpu02"]));
    expect(plan.tests.map((t) => t.perNode)).toEqual([true, true, false]);
  });

  test("on local it is the one run, on the one host, with the host as its unit", async () => {
    const plan = buildPlan(await load({ "s.yaml": SUITE }), { platform: "local", cli: {}, eachNode: true });
    expect(plan.tests[1]!.perNode).toBe(true);
    expect(plan.tests[1]!.worldSize).toBe(8);
  });
});

describe("--nodes", () => {
  test("overrides defaults.nodes for tests that do not set nodes: themselves", async () => {
    const plan = buildPlan(await load({ "s.yaml": SUITE }), ssh(["a", "b", "c"], { nodes: 3 }));
    expect(plan.tests.map((t) => [t.name, t.nodes, t.worldSize])).toEqual([
      ["inventory", 3, 1],
      ["nccl-one", 3, 24],
      ["fabric", 2, 16],
    ]);
  });

  test("more nodes than ssh hosts: an error naming both numbers", async () => {
    const suite = await load({ "s.yaml": SUITE });
    expect(() => buildPlan(suite, ssh(["a", "b"], { nodes: 3 }))).toThrow("gpucheck: --nodes 3 needs 3 hosts but ssh has 2: a, b; pass --nodes 2 or more hosts with --hosts");
    expect(() => buildPlan(suite, { platform: "docker", cli: { hosts: ["h1", "h2"] }, nodes: 4 })).toThrow(
      "gpucheck: --nodes 4 needs 4 hosts but docker has 2: h1, h2; pass --nodes 2 or more hosts with --hosts",
    );
  });

  test("--each-node after --nodes 2: no test is one-node any more", async () => {
    const plan = buildPlan(await load({ "s.yaml": SUITE }), ssh(["a", "b"], { nodes: 2, eachNode: true }));
    expect(plan.tests.map((t) => t.perNode)).toEqual([true, false, false]);
  });

  for (const [given, shown] of [
    ["0", "0"],
    ["-1", "-1"],
    ["2.5", "2.5"],
    ["two", "two"],
  ]) {
    test(`--nodes ${given}: exit 2, one line`, async () => {
      const r = await gpucheckRun(["plan", "cpu-smoke", "--nodes", given!]);
      expect(r.status).toBe(2);
      expect(r.stderr).toBe(`gpucheck: --nodes: must be a positive integer, got "${shown}"\n`);
    });
  }

  test("gpucheck plan --hosts with more nodes than hosts, through the CLI", async () => {
    const r = await gpucheckRun(["plan", "h100-multinode", "--platform", "ssh", "--hosts", "a,b", "--nodes", "3"]);
    expect(r.status).toBe(2);
    expect(r.stderr).toBe("gpucheck: --nodes 3 needs 3 hosts but ssh has 2: a, b; pass --nodes 2 or more hosts with --hosts\n");
  });

  test("gpucheck plan --json through the CLI: placement and warnings, stderr empty", async () => {
    const r = await gpucheckRun(["plan", "cpu-smoke", "--platform", "ssh", "--hosts", "gpu01,gpu02,gpu03", "--json"]);
    expect(r.stderr).toBe("");
    const plan = JSON.parse(r.stdout);
    expect(plan.warnings).toEqual([
      'test "allreduce-gloo" runs on gpu01; gpu02, gpu03 unused: pass --each-node to run it on every host',
      'test "resnet18-fashionmnist" runs on gpu01; gpu02, gpu03 unused: pass --each-node to run it on every host',
    ]);
    expect(plan.tests[1].placement.hosts).toEqual(["gpu01"]);
  });
});
