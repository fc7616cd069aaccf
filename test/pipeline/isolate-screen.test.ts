// `screen:` through the pipeline: adaptive screening launches the suite's own groups (racks, rails)
// first, a failing group is bisected inside itself, and the groups are checked against the run's
// hosts before anything runs. On the fake hosts of fake-hosts.ts.
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { PLATFORMS } from "../../cli/platforms.ts";
import { registerPlatforms } from "../../lib/core/platform.ts";
import type { ResultsFile } from "../../lib/core/types.ts";
import { executePlan } from "../../lib/pipeline/run-suite.ts";
import { renderPlanText } from "../../lib/plan/text.ts";
import { rejudgeResults } from "../../lib/assess/rejudge.ts";
import { readSavedRuns } from "../../lib/execute/saved-runs.ts";
import { tempDir } from "../tmp.ts";
import { fakeHostsPlatform, type UnitEnd } from "./fake-hosts.ts";
import { PYTHON } from "./fake-platform.ts";
import { planLines, silentProgress } from "./planned-suite.ts";

const HOSTS = ["r1a", "r1b", "r1c", "r2a", "r2b", "r2c"];
const RACKS = "screen: { rack1: [r1a, r1b, r1c], rack2: [r2a, r2b, r2c] }";

const lines = (keys: string[]) => [
  "name: screen",
  `defaults: { python: ${PYTHON}, gpusPerNode: 0, ranksPerNode: 1 }`,
  "tests:",
  "  - name: fabric",
  "    kind: collective",
  ...keys.map((k) => `    ${k}`),
  "    collective: { op: all_reduce, minBytes: 1, maxBytes: 128MiB, backend: gloo }",
];

/** The suite with `keys` planned and run on the fake hosts, `end` saying how each group's run ends. */
async function run(keys: string[], end: (hosts: string[]) => UnitEnd) {
  const dir = tempDir("gpucheck-screen-");
  const launched: string[][] = [];
  const platform = fakeHostsPlatform({ hosts: HOSTS, end }, launched);
  registerPlatforms({ ...PLATFORMS, "fake-hosts": platform });
  try {
    const { yaml, suite, plan } = await planLines(dir, lines(keys), { platform: "fake-hosts" });
    const outDir = join(dir, "run");
    await executePlan(suite, plan, { outDir, cli: {}, progress: silentProgress(), command: ["gpucheck"], suiteText: yaml, signal: new AbortController().signal, platform });
    const results = JSON.parse(readFileSync(join(outDir, "results.json"), "utf8")) as ResultsFile;
    return { plan, suite, outDir, results, launched };
  } finally {
    registerPlatforms(PLATFORMS);
  }
}

/** What planning the suite with `keys` on the fake hosts throws. */
async function refusal(keys: string[]): Promise<string> {
  registerPlatforms({ ...PLATFORMS, "fake-hosts": fakeHostsPlatform({ hosts: HOSTS, end: () => "ok" }) });
  try {
    await planLines(tempDir("gpucheck-screen-"), lines(keys), { platform: "fake-hosts" });
    return "planned";
  } catch (err) {
    return (err as Error).message;
  } finally {
    registerPlatforms(PLATFORMS);
  }
}

const failsWith =
  (bad: string) =>
  (hosts: string[]): UnitEnd =>
    hosts.includes(bad) ? "fail" : "ok";

describe("screen: the suite's groups, screened first", () => {
  test("adaptive launches the racks as the screen, bisects inside the failing rack, and names its bad node", async () => {
    const r = await run(["pattern: adaptive", RACKS], failsWith("r2b"));
    const t = r.results.tests[0]!;
    expect(r.launched.slice(0, 2)).toEqual([
      ["r1a", "r1b", "r1c"],
      ["r2a", "r2b", "r2c"],
    ]);
    expect(t.units.slice(0, 2).map((u) => u.unit)).toEqual(["1.rack1", "1.rack2"]);
    expect(t.isolation?.bad).toEqual(["r2b"]);
    expect(t.isolation?.nodes.filter((n) => n.verdict !== "good").map((n) => n.node)).toEqual(["r2b"]);
    // after the screen, every launch holds a node of the failing rack but for healthy controls (pairs
    // of rack1's nodes that keep the relative rule comparable), never all of rack1 again
    expect(r.launched.slice(2).filter((g) => g.length > 2 && g.every((n) => n.startsWith("r1")))).toEqual([]);
    expect(t.isolation?.run?.screen).toEqual([
      { name: "rack1", nodes: ["r1a", "r1b", "r1c"] },
      { name: "rack2", nodes: ["r2a", "r2b", "r2c"] },
    ]);
    // judge feeds the saved rounds to the same groups and reaches the same verdict
    const again = rejudgeResults(r.results, r.suite, { runs: readSavedRuns(r.outDir, r.results) });
    expect(again.results.tests[0]!.isolation?.bad).toEqual(["r2b"]);
  });

  test("onFailure: isolate screens the racks even below the size where it would bisect", async () => {
    const r = await run(["nodes: 6", "onFailure: isolate", RACKS], failsWith("r1c"));
    expect(r.plan.tests[0]!.isolation?.pattern).toBe("adaptive");
    expect(renderPlanText(r.plan)).toContain('adaptive screening (the 2 groups of "screen"), then bisection');
    expect(r.results.tests[0]!.isolation?.bad).toEqual(["r1c"]);
    // the ring run, then the two racks side by side
    expect(r.launched.slice(0, 3)).toEqual([HOSTS, ["r1a", "r1b", "r1c"], ["r2a", "r2b", "r2c"]]);
  });

  test("groups that do not cover the run's hosts exactly are refused before anything runs", async () => {
    expect(await refusal(["pattern: adaptive", "screen: { rack1: [r1a, r1b, r1c], rack2: [r2a, r2b] }"])).toBe(
      'gpucheck: test "fabric" has "pattern: adaptive", which screens the groups of "screen" first, and r2c is in no group',
    );
    expect(await refusal(["pattern: adaptive", "screen: { rack1: [r1a, r1b, r1c], rack2: [r2a, r2b, r2c, gpu99] }"])).toBe(
      'gpucheck: test "fabric" has "pattern: adaptive", which screens the groups of "screen" first, and "gpu99" in group "rack2" is not a host of the run (r1a, r1b, r1c, r2a, r2b, r2c)',
    );
  });
});
