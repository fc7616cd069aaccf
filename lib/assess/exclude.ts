// `gpucheck judge --exclude-bad`: the cluster judged without the nodes its isolating tests found bad,
// so 62 good nodes can be accepted while 2 go back to the vendor. Nothing is hidden: an isolating
// test keeps every node's verdict and is judged on what remains (its bad pairs, its untested nodes);
// every other unit that ran on an excluded node is skipped with the reason, never passed.
import type { ResultsFile, TestResult, UnitResult } from "../core/types.ts";
import { isolatedOutcome } from "./isolation.ts";
import { judgeRun, judgeTest } from "./judge.ts";

export function excludeBad(results: ResultsFile): { results: ResultsFile; notes: string[] } {
  const finders = new Map<string, string[]>();
  for (const t of results.tests) for (const n of t.isolation?.bad ?? []) finders.set(n, [...(finders.get(n) ?? []), t.name]);
  if (!finders.size) {
    const isolating = results.tests.filter((t) => t.isolation).map((t) => t.name);
    const why = isolating.length
      ? `its isolating tests (${isolating.join(", ")}) found no bad node`
      : "it has no isolating test (pattern: pairwise, bisect or adaptive, or onFailure: isolate)";
    return { results, notes: [`--exclude-bad: nothing to exclude: ${why}`] };
  }
  const bad = [...finders.keys()];
  const reasonFor = (hosts: string[]) =>
    `excluded: ${hosts
      .filter((h) => finders.has(h))
      .map((h) => `${h} (found bad by ${finders.get(h)!.join(", ")})`)
      .join(", ")}`;
  const tests = results.tests.map((t): TestResult => {
    if (t.isolation) return { ...t, outcome: isolatedOutcome({ ...t.isolation, bad: [] }, t.units) };
    const units = t.units.map((u): UnitResult => (u.hosts.some((h) => finders.has(h)) ? { ...u, verdict: { ...u.verdict, outcome: "skipped", reason: reasonFor(u.hosts) } } : u));
    return { ...t, units, outcome: judgeTest(units) };
  });
  let outcome = judgeRun(tests);
  // what the run could not be before stays so: an incomplete run or a failed preflight is no pass
  if (results.outcome === "error" && !results.complete) outcome = "error";
  if (results.preflight && !results.preflight.passed) outcome = "error";
  const skipped = tests.reduce((n, t, i) => n + t.units.filter((u, j) => u.verdict.outcome === "skipped" && results.tests[i]!.units[j]!.verdict.outcome !== "skipped").length, 0);
  return {
    results: { ...results, tests, outcome, excluded: bad },
    notes: [`--exclude-bad: judged without ${bad.join(", ")}: ${skipped} unit(s) that ran on them skipped`],
  };
}
