// The isolating patterns through the whole pipeline in-process: plan, rounds launched as units,
// each unit judged, the isolation's verdict, and what results.json, junit.xml and the summary say.
// The hosts are a fake platform's (fake-hosts.ts); real faults on real hosts are the integration tier's.
import { silentProgress } from "./planned-suite.ts";
import { describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { PLATFORMS } from "../../cli/platforms.ts";
import { registerPlatforms } from "../../lib/core/platform.ts";
import type { Progress } from "../../lib/core/progress.ts";
import type { ResultsFile } from "../../lib/core/types.ts";
import { loadSuite } from "../../lib/load/mod.ts";
import { executePlan } from "../../lib/pipeline/run-suite.ts";
import { buildPlan } from "../../lib/plan/plan.ts";
import { rejudgeResults } from "../../lib/assess/rejudge.ts";
import { readSavedRuns } from "../../lib/execute/saved-runs.ts";
import { excludeBad } from "../../lib/assess/exclude.ts";
import { renderPlanText } from "../../lib/plan/text.ts";
import { renderSummary } from "../../lib/report/summary.ts";
import { renderHtml } from "../../lib/report/html.ts";
import { certificateView } from "../../lib/sign/certificate-view.ts";
import { renderCertificateHtml } from "../../lib/sign/certificate-html.ts";
import { renderCertificateMd } from "../../lib/sign/certificate-md.ts";
import { buildStatement } from "../../lib/sign/statement.ts";
import { assertResultsValid } from "../report/results-check.ts";
import { assertJunitValid } from "../report/junit-check.ts";
import { tempDir } from "../tmp.ts";
import { fakeHostsPlatform, type HostsScript, type UnitEnd } from "./fake-hosts.ts";
import { NCCL_LOG, PYTHON } from "./fake-platform.ts";

const HOSTS = ["h1", "h2", "h3", "h4"];
const SIGNER = { fingerprint: "SHA256:bbXpuKG6zhzdmnxq256TlqzFBzRl2f6OOg722cYNbU8", algorithm: "ed25519" as const };

const quiet = (notes: string[]): Progress => silentProgress(notes);

/** One gloo collective with `keys` (pattern, onFailure, timeout) on the fake hosts. */
async function run(keys: string[], script: HostsScript, extra: string[] = []) {
  const dir = tempDir("gpucheck-isolate-");
  const launched: string[][] = [];
  const platform = fakeHostsPlatform(script, launched);
  registerPlatforms({ ...PLATFORMS, "fake-hosts": platform });
  const yaml = [
    "name: isolate",
    `defaults: { python: ${PYTHON}, gpusPerNode: 0, ranksPerNode: 1 }`,
    "tests:",
    "  - name: fabric",
    "    kind: collective",
    ...keys.map((k) => `    ${k}`),
    "    collective: { op: all_reduce, minBytes: 1, maxBytes: 128MiB, backend: gloo }",
    ...extra,
    "",
  ].join("\n");
  writeFileSync(join(dir, "suite.yaml"), yaml);
  const suite = await loadSuite(join(dir, "suite.yaml"));
  const plan = buildPlan(suite, { platform: "fake-hosts", cli: {} });
  const notes: string[] = [];
  const outDir = join(dir, "run");
  await executePlan(suite, plan, { outDir, cli: {}, progress: quiet(notes), command: ["gpucheck"], suiteText: yaml, signal: new AbortController().signal, platform });
  registerPlatforms(PLATFORMS);
  assertResultsValid(join(outDir, "results.json"));
  assertJunitValid(join(outDir, "junit.xml"));
  const results = JSON.parse(readFileSync(join(outDir, "results.json"), "utf8")) as ResultsFile;
  return {
    plan,
    suite,
    outDir,
    results,
    html: renderHtml(results),
    junit: readFileSync(join(outDir, "junit.xml"), "utf8"),
    summary: renderSummary(results, { color: false }),
    launched,
    notes,
  };
}

const badNode =
  (bad: string) =>
  (hosts: string[]): UnitEnd =>
    hosts.includes(bad) ? "fail" : "ok";

describe("pattern: pairwise", () => {
  test("one failing host is named bad after the second pass, and no other", async () => {
    const r = await run(["pattern: pairwise"], { hosts: HOSTS, end: badNode("h3") });
    const t = r.results.tests[0]!;
    expect(t.isolation?.bad).toEqual(["h3"]);
    expect(t.isolation?.nodes.filter((n) => n.verdict !== "good").map((n) => n.node)).toEqual(["h3"]);
    expect(t.outcome).toBe("failed");
    // the run fails (exit 1: a finding), not errors: the crashed pairs are evidence, the bad node the verdict
    expect(r.results.outcome).toBe("failed");
    // the three rounds of the circle method, then h3 against two nodes that passed every pair
    expect(r.launched.slice(0, 6).map((g) => g.join("+"))).toEqual(t.isolation!.groups.slice(0, 6).map((g) => g.group.nodes.join("+")));
    expect(r.launched.length).toBeGreaterThan(6);
    expect(t.units.map((u) => u.unit)[0]).toMatch(/^1\./);
    expect(r.summary.trimEnd().split("\n").at(-1)).toStartWith("Bad nodes: h3 (fabric: ");
    expect(r.junit).toContain('name="fabric [node h3]"');
    expect(r.junit).toMatch(/name="fabric \[node h3\]"[^>]*>\s*<failure message="bad: /);
    expect(r.junit).toMatch(/name="fabric \[node h1\]"[^>]*>\s*<system-out>/);
    // report.html: the pair matrix with h3's failed pairs marked, and h3 in the table of nodes
    expect(r.html).toContain('<svg class="pair-matrix" role="img" aria-label="pair matrix of 4 nodes"');
    expect(r.html.match(/<title>h3\+h4 \(round 1, pairwise\): failed/g)).toHaveLength(2);
    expect(r.html).toMatch(/<tr data-outcome="failed"><td>h3<\/td><td>bad<\/td>/);
    // the certificate: the nodes accepted, and h3 rejected with why
    const v = certificateView(
      buildStatement(r.results, [{ name: "results.json", sha256: "0".repeat(64) }], { certifiedAt: "2026-11-26T00:00:00.000Z", gpucheckVersion: "0.1.0" }),
      SIGNER,
    );
    expect(v.nodeVerdicts).toEqual({
      accepted: "h1, h2, h4",
      rejected: [{ node: "h3", why: "3 of 3 pairs bad (3 failed); second pass confirmed: 2 of 2 pairs with healthy partners bad (h1, h2)" }],
      unjudged: "",
    });
    expect(renderCertificateMd(v)).toContain("## Nodes\n\nAccepted: h1, h2, h4\n\n| Rejected node | Why |");
    expect(renderCertificateHtml(v)).toContain('<tr><td class="bad mono">h3</td><td class="small">3 of 3 pairs bad (3 failed); second pass confirmed');
  });

  test("a host that stops answering after the preflight is evidence against it alone, and is named", async () => {
    const r = await run(["pattern: pairwise"], { hosts: HOSTS, end: (h) => (h.includes("h2") ? { lost: "h2" } : "ok") });
    const t = r.results.tests[0]!;
    expect(t.isolation?.bad).toEqual(["h2"]);
    expect(t.isolation?.nodes.filter((n) => n.verdict !== "good").map((n) => n.node)).toEqual(["h2"]);
    expect(t.units.find((u) => u.hosts.includes("h2"))).toMatchObject({ status: "infra", lost: ["h2"] });
  });

  test("units that come back in another order than planned are matched to their groups by name", async () => {
    // Slurm returns the groups it could not submit (a node DOWN) after the others: matched by
    // position, a frozen node's failures were laid on good pairs and no node was named
    for (const pattern of ["pairwise", "bisect"]) {
      const r = await run([`pattern: ${pattern}`], { hosts: HOSTS, end: (h) => (h.includes("h2") ? { lost: "h2" } : "ok"), reversed: true });
      expect(r.results.tests[0]!.isolation?.bad).toEqual(["h2"]);
      expect(r.results.tests[0]!.isolation?.badPairs).toEqual([]);
    }
  });

  test("no fault: no node is named, the test passes", async () => {
    const r = await run(["pattern: pairwise"], { hosts: HOSTS, end: () => "ok" });
    const t = r.results.tests[0]!;
    expect(t.isolation?.bad).toEqual([]);
    expect(t.isolation?.nodes.map((n) => n.verdict)).toEqual(["good", "good", "good", "good"]);
    expect(t.outcome).toBe("passed");
    expect(r.launched).toHaveLength(6);
    expect(r.summary.trimEnd().split("\n").at(-1)).toBe("Bad nodes: none (fabric: 4 nodes judged)");
    expect(r.results.outcome).toBe("passed");
  });

  test("the plan lists every round of the first pass and what is decided at run time", async () => {
    const r = await run(["pattern: pairwise"], { hosts: HOSTS, end: () => "ok" });
    const text = renderPlanText(r.plan);
    expect(text).toContain("   pattern pairwise over 4 hosts: 3 round(s), 6 launch(es) in the first pass\n");
    expect(text).toContain("     then a second pass: each suspect against 2 nodes that passed every pair, decided at run time\n");
    expect(r.plan.tests[0]!.isolation!.rounds.map((x) => x.units.length)).toEqual([2, 2, 2]);
    // the first round's units named as the run names them
    expect(r.plan.tests[0]!.units.map((u) => u.name)).toEqual(r.results.tests[0]!.units.slice(0, 2).map((u) => u.unit));
  });
});

describe("pattern: bisect", () => {
  test("a host that hangs every run it is in is found by halves, its units cut by the timeout", async () => {
    // the evidence of the nodes in the failed units: the hung one answers nothing within the suite's evidence timeout
    const r = await run(["pattern: bisect", "timeout: 500ms"], { hosts: HOSTS, end: (h) => (h.includes("h2") ? "hang" : "ok") }, ["evidence: { timeout: 500ms }"]);
    const t = r.results.tests[0]!;
    expect(t.isolation?.bad).toEqual(["h2"]);
    expect(t.units[0]!.status).toBe("timeout");
    expect(t.units[0]!.hosts).toEqual(HOSTS);
    expect(t.isolation?.launches).toBe(t.units.length);
    const h2 = r.results.evidence!.find((e) => e.node === "h2")!;
    expect(h2.file).toBe("evidence/h2.tar.gz");
    expect(h2.missing[0]!.item).toBe("the node's state");
    expect(h2.missing[0]!.why).toStartWith("the evidence command on h2 ended timeout");
  }, 60_000);
});

describe("onFailure: isolate", () => {
  test("a failed ring run is bisected, its own run standing as the first round", async () => {
    const r = await run(["nodes: 4", "onFailure: isolate"], { hosts: HOSTS, end: badNode("h4") });
    const t = r.results.tests[0]!;
    expect(t.isolation?.bad).toEqual(["h4"]);
    expect(t.units[0]!.unit).toBe("all");
    // the whole set ran once, as the ring test itself
    expect(r.launched.filter((g) => g.length === 4)).toHaveLength(1);
    expect(r.notes).toContain("fabric: the run over 4 nodes failed: isolating the node(s) behind it by bisect");
  });

  test("a ring run that passes is not isolated", async () => {
    const r = await run(["nodes: 4", "onFailure: isolate"], { hosts: HOSTS, end: () => "ok" });
    expect(r.results.tests[0]!.isolation).toBeUndefined();
    expect(r.launched).toEqual([HOSTS]);
  });
});

describe("plan refusals", () => {
  test("a pattern on a platform that runs every node on one host", async () => {
    const dir = tempDir("gpucheck-isolate-");
    writeFileSync(join(dir, "s.yaml"), "name: s\ntests:\n  - { name: f, kind: collective, pattern: pairwise }\n");
    const suite = await loadSuite(join(dir, "s.yaml"));
    expect(() => buildPlan(suite, { platform: "local", cli: {} })).toThrow(
      'gpucheck: test "f" has "pattern: pairwise", which runs groups of hosts side by side, and platform "local" runs a test only as one whole-cluster unit or one unit per node: use platform ssh, slurm, docker or k8s',
    );
    expect(() => buildPlan(suite, { platform: "k8s", cli: {} })).toThrow(
      'gpucheck: test "f" has "pattern: pairwise", which needs the run\'s hosts before it starts, and platform "k8s" learns its nodes only at run time: give them with platform.k8s.nodes in the suite',
    );
    expect(() => buildPlan(suite, { platform: "docker", cli: {} })).toThrow(
      'gpucheck: test "f" has "pattern: pairwise", which needs hosts of their own, and platform "docker" runs every node on one host: give several with --hosts',
    );
    expect(() => buildPlan(suite, { platform: "ssh", cli: { hosts: ["a"] } })).toThrow(
      'gpucheck: test "f" has "pattern: pairwise", which needs at least 2 hosts; the run has 1: a',
    );
  });
});

describe("gpucheck judge on an isolating test", () => {
  test("its saved rounds are fed again: the same suite gives the same bad node", async () => {
    const r = await run(["pattern: pairwise"], { hosts: HOSTS, end: badNode("h3") });
    const again = rejudgeResults(r.results, r.suite, { runs: readSavedRuns(r.outDir, r.results) });
    expect(again.notes).toEqual([]);
    expect(again.results.tests[0]!.isolation?.bad).toEqual(["h3"]);
    expect(again.results.tests[0]!.isolation?.groups).toEqual(r.results.tests[0]!.isolation!.groups);
    expect(again.results.outcome).toBe("failed");
  });

  test("a suite whose verdicts call for rounds the run never had stops the isolation there and says so", async () => {
    const r = await run(["pattern: bisect"], { hosts: HOSTS, end: () => "ok" });
    expect(r.results.tests[0]!.units.map((u) => u.unit)).toEqual(["1.all"]);
    // a floor no pair meets: the whole set now fails, and bisection would want halves the run never ran
    const strict = { ...r.suite, tests: r.suite.tests.map((t) => ({ ...t, expect: [{ metric: "busbw", unit: "GB/s", min: 1000, text: "busbw: { min: 1000 GB/s }" }] })) };
    const again = rejudgeResults(r.results, strict as typeof r.suite, { runs: readSavedRuns(r.outDir, r.results) });
    expect(again.notes).toEqual([
      'test "fabric": judged again, the isolation would next run bisect 2 (h1+h2, h3+h4), which the run never reached: the isolation stops there, incomplete',
    ]);
    expect(again.results.tests[0]!.isolation?.complete).toBe(false);
    expect(again.results.tests[0]!.outcome).toBe("error");
  });
});

describe("gpucheck judge --exclude-bad", () => {
  const RING = ["  - name: ring", "    kind: collective", "    nodes: 4", "    collective: { op: all_reduce, minBytes: 1, maxBytes: 128MiB, backend: gloo }"];

  test("the cluster judged without the bad node: its other units skipped with why, the isolation keeps every verdict", async () => {
    const r = await run(["pattern: pairwise"], { hosts: HOSTS, end: badNode("h3") }, RING);
    // the ring over every host crashed on h3's link: an error, which no verdict of the pairs can turn into a pass
    expect(r.results.outcome).toBe("error");
    expect(r.results.tests[1]!.outcome).toBe("error");
    const { results, notes } = excludeBad(r.results);
    expect(notes).toEqual(["--exclude-bad: judged without h3: 1 unit(s) that ran on them skipped"]);
    expect(results.excluded).toEqual(["h3"]);
    expect(results.tests[0]!.outcome).toBe("passed");
    expect(results.tests[0]!.isolation!.nodes.find((n) => n.node === "h3")!.verdict).toBe("bad");
    expect(results.tests[1]!.units[0]!.verdict).toMatchObject({ outcome: "skipped", reason: "excluded: h3 (found bad by fabric)" });
    expect(results.outcome).toBe("passed");
    const v = certificateView(
      buildStatement(results, [{ name: "results.json", sha256: "0".repeat(64) }], { certifiedAt: "2026-11-26T00:00:00.000Z", gpucheckVersion: "0.1.0" }),
      SIGNER,
    );
    expect(v.nodeVerdicts?.accepted).toBe("h1, h2, h4 (the verdicts above are of the cluster without the rejected nodes: gpucheck judge --exclude-bad)");
  });

  test("nothing found bad: nothing is excluded, and it says why", async () => {
    const r = await run(["pattern: pairwise"], { hosts: HOSTS, end: () => "ok" });
    expect(excludeBad(r.results).notes).toEqual(["--exclude-bad: nothing to exclude: its isolating tests (fabric) found no bad node"]);
    expect(excludeBad({ ...r.results, tests: [] }).notes).toEqual([
      "--exclude-bad: nothing to exclude: it has no isolating test (pattern: pairwise, bisect or adaptive, or onFailure: isolate)",
    ]);
  });
});

describe("fleet-relative verdicts of a per-node metric", () => {
  // the 128 MiB row of the real log with both its busbw (out of place, in place) made slower, as gpucheck judge's tests do
  const ROW = NCCL_LOG.split("\n").find((l) => l.trim().startsWith("134217728 "))!;
  const slower = (busbw: string) => NCCL_LOG.replace(ROW, ROW.replace(" 101.70 ", ` ${busbw} `).replace(" 107.63 ", ` ${busbw} `));

  test("the node 20 % below the others is flagged with its value, the median and the ratio; the others pass", async () => {
    const r = await run(["pattern: each-node", "expect:", "  busbw: { outlier: { over: fleet } }"], {
      hosts: HOSTS,
      end: () => "ok",
      log: (h) => (h[0] === "h2" ? slower(" 86.10") : h[0] === "h4" ? slower("105.90") : NCCL_LOG),
    });
    const byNode = Object.fromEntries(r.results.tests[0]!.units.map((u) => [u.unit, u.verdict]));
    expect(byNode.h2!.outcome).toBe("failed");
    expect(byNode.h2!.checks[0]!.message).toBe(
      "busbw 86.1 GB/s is 16.11 scaled MADs below the median 106.8 (0.8064 ×); an outlier: the cut is 3 below (median of the 4 nodes of the test, MAD 0.865 GB/s)",
    );
    expect(byNode.h1!.outcome).toBe("passed");
    expect(byNode.h4!.outcome).toBe("passed");
    expect(r.results.outcome).toBe("failed");
  });

  test("with a ratio instead of MADs: below 0.9 × the median of the nodes", async () => {
    const r = await run(["pattern: each-node", "expect:", "  busbw: { outlier: { below: 0.9 } }"], {
      hosts: HOSTS,
      end: () => "ok",
      log: (h) => (h[0] === "h3" ? slower(" 86.10") : NCCL_LOG),
    });
    const h3 = r.results.tests[0]!.units.find((u) => u.unit === "h3")!;
    expect(h3.verdict.checks[0]!.message).toBe("busbw 86.1 GB/s is 0.800 × the median 107.6 GB/s of the 4 nodes of the test (< 0.9 expected)");
    expect(r.results.tests[0]!.units.filter((u) => u.verdict.outcome === "passed").map((u) => u.unit)).toEqual(["h1", "h2", "h4"]);
  });

  test("fewer than 3 measured nodes: no fleet verdict, an error, never a pass", async () => {
    const r = await run(["pattern: each-node", "expect:", "  busbw: { outlier: { over: fleet } }"], { hosts: ["h1", "h2"], end: () => "ok" });
    const u = r.results.tests[0]!.units[0]!;
    expect(u.verdict.outcome).toBe("error");
    expect(u.verdict.checks[0]!.message).toBe("busbw fleet rule cannot be judged: no fleet verdict: 2 measured values, at least 3 needed for a median (2 nodes of the test)");
  });
});
