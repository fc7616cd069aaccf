// The isolating patterns' conformance: one table of scenarios (pairwise, bisect, a ring with
// onFailure: isolate; one node failing, one hanging, none) through the whole pipeline on every
// platform that runs a round's groups side by side and can be driven in-process, each run asserting
// the same bad node by its place in the run's host list: what results.json, junit.xml and the
// summary name must not depend on which platform found it.
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { CliOverrides, Platform } from "../../lib/core/platform.ts";
import type { ResultsFile } from "../../lib/core/types.ts";
import { executePlan } from "../../lib/pipeline/run-suite.ts";
import { renderSummary } from "../../lib/report/summary.ts";
import { fakeWorkload, type NodeFault } from "../fakes/fake-workload.ts";
import { planLines, silentProgress } from "../pipeline/planned-suite.ts";
import { assertResultsValid } from "../report/results-check.ts";
import { assertJunitValid } from "../report/junit-check.ts";
import { tempDir } from "../tmp.ts";

export interface PatternTarget {
  /** the run's hosts, in the order the plan takes them */
  nodes: string[];
  /** the test's timeout in the hang cases (default 10s): every round with the hung node waits it out, so each platform sets it a few times above what a healthy unit took under load, measured (a round of docker containers took over 5 s on this 2-core machine at a load of 60) */
  hangTimeout?: string;
  /** the suite's `platform:` line and the platform the run goes through, for a run whose ranks run `python` */
  setup(python: string, fault: NodeFault | undefined): { platformYaml: string; platform: Platform<unknown>; cli?: CliOverrides; python?: string };
}

export interface PatternRun {
  results: ResultsFile;
  junit: string;
  summary: string;
  elapsedMs: number;
}

const PATTERNS = [
  { name: "pairwise", keys: ["pattern: pairwise"] },
  { name: "bisect", keys: ["pattern: bisect"] },
  { name: "ring with onFailure: isolate", keys: ["nodes: 4", "onFailure: isolate"] },
] as const;
const FAULTS = [undefined, "fail", "hang"] as const;
/** which scenarios a table runs: none and fail in one file; the hanging node, whose runs mostly
 * wait out timeouts, runs in a file of its own per platform (test/integration/no-daemon/*-patterns-hang.test.ts,
 * about a minute each) */
export type PatternFault = "none" | "fail" | "hang";
/** the node every faulty scenario breaks, by its place in the host list */
const BAD = 2;

export async function runPattern(t: PatternTarget, keys: readonly string[], fault: NodeFault | undefined): Promise<PatternRun> {
  const dir = tempDir("gpucheck-pattern-");
  const workload = fakeWorkload(dir, fault);
  const { platformYaml, platform, cli = {}, python = workload } = t.setup(workload, fault);
  const { yaml, suite, plan } = await planLines(
    dir,
    [
      "name: pattern-conformance",
      `platform: ${platformYaml}`,
      `defaults: { python: ${python}, gpusPerNode: 0, ranksPerNode: 1${fault?.end === "hang" ? `, timeout: ${t.hangTimeout ?? "10s"}` : ""} }`,
      // the patterns, not the failed nodes' evidence (test/evidence, the integration tier): a hung node would
      // add its evidence timeout to every scenario
      "evidence: { collect: false }",
      "tests:",
      "  - name: fabric",
      "    kind: collective",
      ...keys.map((k) => `    ${k}`),
      "    collective: { op: all_reduce, minBytes: 1, maxBytes: 128MiB, backend: gloo }",
    ],
    { cli },
  );
  const outDir = join(dir, "run");
  const started = Date.now();
  await executePlan(suite, plan, { outDir, cli, progress: silentProgress(), command: ["gpucheck"], suiteText: yaml, signal: new AbortController().signal, platform });
  const elapsedMs = Date.now() - started;
  assertResultsValid(join(outDir, "results.json"));
  assertJunitValid(join(outDir, "junit.xml"));
  const results = JSON.parse(readFileSync(join(outDir, "results.json"), "utf8")) as ResultsFile;
  return { results, junit: readFileSync(join(outDir, "junit.xml"), "utf8"), summary: renderSummary(results, { color: false }), elapsedMs };
}

/**
 * The table for one platform. Its scenarios run a few at a time, the hanging ones first: most of
 * their time is waiting for a hung unit's timeout, while a healthy unit must stay well inside that
 * timeout on a loaded machine, which too many runs at once in this one process would not.
 */
export function patternConformance(name: string, target: () => PatternTarget, opts: { timeoutMs?: number; atOnce?: number; faults: readonly PatternFault[] }): void {
  const faults = FAULTS.filter((f) => opts.faults.includes(f ?? "none"));
  let runs: Map<string, Promise<PatternRun>> | undefined;
  const all = () => {
    if (runs) return runs;
    const t = target();
    const queue = PATTERNS.flatMap((p) => faults.map((f) => ({ key: `${p.name}/${f}`, keys: p.keys, fault: f && { node: t.nodes[BAD]!, end: f } })));
    queue.sort((a, b) => Number(b.fault?.end === "hang") - Number(a.fault?.end === "hang"));
    const started = new Map(queue.map((s) => [s.key, Promise.withResolvers<PatternRun>()]));
    const next = async (): Promise<void> => {
      for (let s = queue.shift(); s; s = queue.shift()) {
        const done = started.get(s.key)!;
        await runPattern(t, s.keys, s.fault).then(done.resolve, done.reject);
      }
    };
    for (let i = 0; i < (opts.atOnce ?? 3); i++) void next();
    runs = new Map([...started].map(([k, d]) => [k, d.promise]));
    // a scenario whose test is filtered out must not surface as an unhandled rejection
    for (const r of runs.values()) r.catch(() => {});
    return runs;
  };
  for (const p of PATTERNS) {
    for (const f of faults) {
      test(
        `${name}: ${p.name}, ${f === undefined ? "no fault" : `one node's collective ${f === "fail" ? "fails" : "hangs"}`}: ${f ? "that node is named bad, and no other" : "no node is named"}`,
        async () => {
          const t = target();
          const r = await all().get(`${p.name}/${f}`)!;
          expectVerdict(r, t.nodes, p.name === "ring with onFailure: isolate", f, t.nodes[BAD]!);
        },
        opts.timeoutMs ?? 300_000,
      );
    }
  }
}

function expectVerdict(r: PatternRun, nodes: string[], ring: boolean, fault: "fail" | "hang" | undefined, bad: string): void {
  const t = r.results.tests[0]!;
  const last = r.summary.trimEnd().split("\n").at(-1);
  if (fault === undefined) {
    expect(r.results.outcome).toBe("passed");
    if (ring) {
      // a whole-cluster run that passes is not isolated
      expect(t.isolation).toBeUndefined();
      expect(t.units.map((u) => [u.unit, u.status])).toEqual([["all", "completed"]]);
      return;
    }
    expect(t.isolation?.bad).toEqual([]);
    expect(t.isolation?.nodes.map((n) => [n.node, n.verdict])).toEqual(nodes.map((n) => [n, "good"]));
    expect(last).toBe("Bad nodes: none (fabric: 4 nodes judged)");
    for (const n of nodes) expect(r.junit).toMatch(new RegExp(`name="fabric \\[node ${literal(n)}\\]"[^>]*>\\s*<system-out>`));
    return;
  }
  const status = fault === "fail" ? "failed" : "timeout";
  const units = t.units.map((u) => `${u.unit} ${u.status}${u.message ? `: ${u.message}` : ""}`).join("\n");
  // the evidence: every unit that had the bad node ended as its fault does, every other completed
  expect(
    t.units.map((u) => [u.unit, u.status]),
    units,
  ).toEqual(t.units.map((u) => [u.unit, u.hosts.includes(bad) ? status : "completed"]));
  expect(t.isolation?.bad).toEqual([bad]);
  expect(t.isolation?.nodes.filter((n) => n.verdict !== "good").map((n) => n.node)).toEqual([bad]);
  if (ring) expect(t.units[0]!.unit).toBe("all");
  expect(t.outcome).toBe("failed");
  expect(r.results.outcome).toBe("failed");
  expect(last).toStartWith(`Bad nodes: ${bad} (fabric: `);
  expect(r.junit).toMatch(new RegExp(`name="fabric \\[node ${literal(bad)}\\]"[^>]*>\\s*<failure message="bad: `));
  for (const n of nodes.filter((x) => x !== bad)) expect(r.junit).not.toMatch(new RegExp(`name="fabric \\[node ${literal(n)}\\]"[^>]*>\\s*<failure`));
}

const literal = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
