// gb200-nvl72 (issue 29: "the new suites validate and plan on all five platforms"): what each
// platform needs to plan a rack of 18 trays, each refusal's exact words when it is not given, and
// b200-8x on all five. On local (one tray) the rack-wide all-reduce is planned as not runnable and
// the run records it as an error: the tray's own tests run, the run never passes.
import { describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { loadSuite } from "../../lib/load/mod.ts";
import { buildPlan } from "../../lib/plan/plan.ts";
import { renderPlanText } from "../../lib/plan/text.ts";
import { executePlan } from "../../lib/pipeline/run-suite.ts";
import { rejudgeResults } from "../../lib/assess/rejudge.ts";
import { readSavedRuns } from "../../lib/execute/saved-runs.ts";
import { buildStatement } from "../../lib/sign/statement.ts";
import type { ResultsFile } from "../../lib/core/types.ts";
import type { CliOverrides, Platform } from "../../lib/core/platform.ts";
import { assertResultsValid } from "../report/results-check.ts";
import { assertJunitValid } from "../report/junit-check.ts";
import { tempDir } from "../tmp.ts";
import { fakePlatform, PYTHON } from "./fake-platform.ts";
import { silentProgress } from "./planned-suite.ts";

const TRAYS = Array.from({ length: 18 }, (_, i) => `tray${String(i + 1).padStart(2, "0")}`);
const IMAGE = "registry.example/gpucheck:1";
const gb200 = await loadSuite("gb200-nvl72");
const b200 = await loadSuite("b200-8x");

/** gb200-nvl72 for a Kubernetes site: the trays named in platform.k8s.nodes, as docs/suites.md shows */
async function k8sSite(nodes: string[]) {
  const dir = tempDir("gpucheck-rack-");
  const path = join(dir, "site-gb200.yaml");
  writeFileSync(path, `name: acme-gb200\nextends: gb200-nvl72\nplatform:\n  type: k8s\n  k8s: { image: ${IMAGE}, nodes: [${nodes.join(", ")}] }\n`);
  return loadSuite(path);
}

const LOCAL_REASON =
  'test "mnnvl-allreduce" needs its 18 nodes on hosts of their own ("onFailure: isolate" names the node behind a failure), and platform "local" runs every node on this one machine: not run, recorded as an error so the run cannot pass; run it on platform ssh, slurm or docker with 18 hosts in --hosts, or k8s with 18 hosts in platform.k8s.nodes in the suite';

describe("gb200-nvl72 plans on every platform given what it needs", () => {
  test("local: the tray's own tests, and the rack all-reduce planned as not runnable, with why", () => {
    const plan = buildPlan(gb200, { platform: "local", cli: {} });
    expect(plan.tests.map((t) => [t.name, t.notRunnable === undefined, t.units.length])).toEqual([
      ["inventory", true, 1],
      ["mnnvl-allreduce", false, 0],
      ["hbm-bandwidth", true, 1],
      ["gemm", true, 1],
      ["nvlink-bandwidth", true, 1],
      ["dcgm-diag", true, 1],
    ]);
    const rack = plan.tests[1]!;
    expect(rack.notRunnable).toBe(LOCAL_REASON);
    // nothing is rendered, nothing will be launched, no isolation planned: plan equals run
    expect(rack.rendered).toBeNull();
    expect(rack.isolation).toBeUndefined();
    // said before anything runs: `gpucheck suite` prints the plan's warnings on stderr as it starts
    expect(plan.warnings).toEqual([LOCAL_REASON]);
    const text = renderPlanText(plan);
    expect(text).toContain(`\nwarning: ${LOCAL_REASON}\n`);
    expect(text).toContain(`2. mnnvl-allreduce  [collective]  18 node(s) × 4 ranks (world 72), 4 GPU(s)/node, timeout 1800s\n   not runnable on platform local: ${LOCAL_REASON}\n`);
    expect(text).toContain("   expected: 0s (not run on this platform: recorded as an error)\n");
  });

  // one test per platform: an 18-host plan renders 108 units and takes a few hundred ms
  const cases: Array<[string, () => Promise<ReturnType<typeof buildPlan>>]> = [
    ["ssh with the 18 trays in --hosts", async () => buildPlan(gb200, { platform: "ssh", cli: { hosts: TRAYS } })],
    ["slurm with the 18 trays in --hosts", async () => buildPlan(gb200, { platform: "slurm", cli: { hosts: TRAYS } })],
    ["docker with the 18 trays' engines in --hosts", async () => buildPlan(gb200, { platform: "docker", cli: { hosts: TRAYS, image: IMAGE } })],
    ["k8s with the 18 trays in platform.k8s.nodes", async () => buildPlan(await k8sSite(TRAYS), { cli: {} })],
  ];
  for (const [name, planOf] of cases) {
    test(name, async () => {
      const plan = await planOf();
      expect(plan.platform).toBe(name.split(" ")[0]!);
      expect(plan.tests.map((t) => [t.name, t.notRunnable])).toEqual(
        ["inventory", "mnnvl-allreduce", "hbm-bandwidth", "gemm", "nvlink-bandwidth", "dcgm-diag"].map((n) => [n, undefined]),
      );
      const rack = plan.tests[1]!;
      expect([rack.worldSize, rack.isolation?.onFailure, rack.isolation?.hosts]).toEqual([72, true, TRAYS]);
    });
  }
});

describe("gb200-nvl72 refusals name the count and how to give it", () => {
  test("local with --nodes 1: a ring of one node has nothing to isolate, refused as before", () => {
    expect(() => buildPlan(gb200, { platform: "local", cli: {}, nodes: 1 })).toThrow(
      'gpucheck: test "mnnvl-allreduce" has "onFailure: isolate", which runs groups of hosts side by side, and platform "local" runs a test only as one whole-cluster unit or one unit per node: use platform ssh, slurm, docker or k8s',
    );
  });

  const two = ["tray01", "tray02"];
  const has = 'gpucheck: test "mnnvl-allreduce" has "onFailure: isolate", which';
  test("slurm without the trays, or with too few", () => {
    expect(() => buildPlan(gb200, { platform: "slurm", cli: {} })).toThrow(
      `${has} needs the run's hosts before it starts, and platform "slurm" learns its nodes only at run time: give its 18 hosts with --hosts`,
    );
    // Slurm would add 16 nodes of its choosing to --nodelist: a failure could not be isolated among them
    expect(() => buildPlan(gb200, { platform: "slurm", cli: { hosts: two } })).toThrow(
      `${has} isolates a failure among the 18 nodes of its run, named before it starts; the run has 2: tray01, tray02: give 18 with --hosts`,
    );
  });

  test("docker on one engine, or too few", () => {
    expect(() => buildPlan(gb200, { platform: "docker", cli: { image: IMAGE } })).toThrow(
      `${has} needs hosts of their own, and platform "docker" runs every node on one host: give 18 with --hosts`,
    );
    expect(() => buildPlan(gb200, { platform: "docker", cli: { image: IMAGE, hosts: two } })).toThrow(
      `${has} isolates a failure among the 18 nodes of its run, named before it starts; the run has 2: tray01, tray02: give 18 with --hosts`,
    );
  });

  test("ssh with too few hosts", () => {
    expect(() => buildPlan(gb200, { platform: "ssh", cli: { hosts: two } })).toThrow(
      'gpucheck: ssh: test "inventory" needs 18 nodes but 2 hosts were given: tray01, tray02; give 18 with --hosts or --hostfile',
    );
  });

  test("k8s without platform.k8s.nodes, or too few", async () => {
    expect(() => buildPlan(gb200, { platform: "k8s", cli: { image: IMAGE } })).toThrow(
      `${has} needs the run's hosts before it starts, and platform "k8s" learns its nodes only at run time: give its 18 hosts with platform.k8s.nodes in the suite`,
    );
    const site = await k8sSite(two);
    expect(() => buildPlan(site, { cli: {} })).toThrow(
      `${has} isolates a failure among the 18 nodes of its run, named before it starts; the run has 2: tray01, tray02: give 18 with platform.k8s.nodes in the suite`,
    );
  });
});

test("b200-8x, one node, plans on all five platforms with nothing more than docker's and k8s's image", () => {
  const cases: Array<[string, CliOverrides]> = [
    ["local", {}],
    ["ssh", { hosts: ["node-a"] }],
    ["slurm", {}],
    ["docker", { image: IMAGE }],
    ["k8s", { image: IMAGE }],
  ];
  for (const [platform, cli] of cases) {
    const plan = buildPlan(b200, { platform, cli });
    expect([platform, plan.tests.length, plan.tests.filter((t) => t.notRunnable).length]).toEqual([platform, 14, 0]);
  }
});

// The run path of a test planned as not runnable, through the whole pipeline in-process: a suite of
// our own on local with a tray test and a rack-wide ring (onFailure: isolate over 4 nodes), run by
// the fake platform, which records what it was asked to launch.
describe("a rack-wide test on local: the run records the plan's error", () => {
  const yaml = [
    "name: rack",
    "platform: { type: local }",
    `defaults: { python: ${PYTHON}, gpusPerNode: 0, ranksPerNode: 2 }`,
    "tests:",
    "  - name: tray",
    "    kind: collective",
    "    collective: { op: all_reduce, minBytes: 1, maxBytes: 128MiB, backend: gloo }",
    "    expect: { busbw: { min: 50 GB/s } }",
    "  - name: rack",
    "    kind: collective",
    "    nodes: 4",
    "    onFailure: isolate",
    "    collective: { op: all_reduce, minBytes: 1, maxBytes: 128MiB, backend: gloo }",
    "    expect: { busbw: { min: 50 GB/s } }",
    "",
  ].join("\n");
  const REASON =
    'test "rack" needs its 4 nodes on hosts of their own ("onFailure: isolate" names the node behind a failure), and platform "local" runs every node on this one machine: not run, recorded as an error so the run cannot pass; run it on platform ssh, slurm or docker with 4 hosts in --hosts, or k8s with 4 hosts in platform.k8s.nodes in the suite';

  async function run(opts: { tray?: "ok" | "fail"; failFast?: boolean } = {}) {
    const dir = tempDir("gpucheck-rack-run-");
    writeFileSync(join(dir, "suite.yaml"), yaml);
    const suite = await loadSuite(join(dir, "suite.yaml"));
    const plan = buildPlan(suite, { cli: {} });
    const launched: string[] = [];
    const fake = fakePlatform({ tray: opts.tray ?? "ok" });
    const platform: Platform<unknown> = { ...fake, run: (ctx) => (launched.push(ctx.test.name), fake.run(ctx)) };
    const outDir = join(dir, "run");
    await executePlan(suite, plan, {
      outDir,
      cli: {},
      progress: silentProgress(),
      command: ["gpucheck"],
      suiteText: yaml,
      signal: new AbortController().signal,
      platform,
      failFast: opts.failFast,
    });
    assertResultsValid(join(outDir, "results.json"));
    assertJunitValid(join(outDir, "junit.xml"));
    const results = JSON.parse(readFileSync(join(outDir, "results.json"), "utf8")) as ResultsFile;
    return { suite, outDir, results, launched, junit: readFileSync(join(outDir, "junit.xml"), "utf8") };
  }

  test("nothing of it is launched; it is an error with the plan's reason in results.json and junit.xml; the run is an error", async () => {
    const r = await run();
    expect(r.launched).toEqual(["preflight", "tray"]);
    expect(r.results.tests.map((t) => [t.name, t.outcome])).toEqual([
      ["tray", "passed"],
      ["rack", "error"],
    ]);
    const unit = r.results.tests[1]!.units[0]!;
    expect([unit.unit, unit.status, unit.message, unit.verdict.reason]).toEqual(["all", "infra", REASON, `could not run: ${REASON}`]);
    expect(r.results.outcome).toBe("error");
    expect(r.results.complete).toBe(true);
    expect(r.junit).toContain(`<error message="could not run: ${REASON.replaceAll('"', "&quot;")}"`);
    // a certificate of this run says ERROR, never PASSED
    const statement = buildStatement(r.results, [{ name: "results.json", sha256: "0".repeat(64) }], { certifiedAt: "2026-11-28T00:00:00.000Z", gpucheckVersion: "0.1.0" });
    expect([statement.predicate.outcome, statement.predicate.tests.map((t) => [t.name, t.outcome])]).toEqual([
      "error",
      [
        ["tray", "passed"],
        ["rack", "error"],
      ],
    ]);
    // gpucheck judge reads the saved record and comes to the same verdict
    const again = rejudgeResults(r.results, r.suite, { runs: readSavedRuns(r.outDir, r.results) });
    expect(again.results.tests.map((t) => [t.name, t.outcome, t.units[0]!.verdict.reason])).toEqual([
      ["tray", "passed", r.results.tests[0]!.units[0]!.verdict.reason],
      ["rack", "error", `could not run: ${REASON}`],
    ]);
  });

  test("a run stopped before it (--fail-fast) still records it as that error, not as not started", async () => {
    const r = await run({ tray: "fail", failFast: true });
    // the failed tray's evidence bundle may follow (collected through the platform); the rack test never runs
    expect(r.launched.filter((name) => name !== "evidence")).toEqual(["preflight", "tray"]);
    expect(r.results.stopped).toBe("--fail-fast: tray ended in an error");
    expect(r.results.tests.map((t) => [t.name, t.outcome, t.units[0]!.message])).toEqual([
      ["tray", "error", r.results.tests[0]!.units[0]!.message],
      ["rack", "error", REASON],
    ]);
    expect(r.results.outcome).toBe("error");
  });
});
