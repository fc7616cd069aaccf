// What a health run says: one line per failure, each naming the node, the test, the part and the
// value against what was expected, as the judge already worded it (lib/assess/). A test that could
// not measure says why; a run stopped at preflight says what preflight found. An empty list is the
// only healthy answer, and only for a run that finished and judged something.
import type { Check, ResultsFile } from "../core/types.ts";

export interface HealthVerdict {
  healthy: boolean;
  /** one line each, without a trailing newline */
  failures: string[];
}

const oneLine = (s: string) => s.replace(/\s*\n\s*/g, " ").trim();

export function healthVerdict(results: ResultsFile, node: string): HealthVerdict {
  const failures: string[] = [];
  const pre = results.preflight;
  if (pre && !pre.passed) {
    for (const n of pre.nodes.filter((x) => !x.passed)) {
      const where = n.hosts.join(",") || n.node;
      if (n.problems.length) for (const p of n.problems) failures.push(`${where}: preflight: ${oneLine(p.message)}`);
      else failures.push(`${where}: preflight could not run: ${oneLine(n.message ?? n.status)}`);
    }
  }
  let judged = 0;
  for (const t of results.tests) {
    if (t.outcome === "passed") {
      judged += t.units.filter((u) => u.verdict.checks.length > 0).length;
      continue;
    }
    // preflight's own lines say what is missing; each test it kept from running is named too, as unmeasured
    if (t.outcome === "skipped" && pre && !pre.passed) {
      failures.push(`${node}: ${t.name}: not run (preflight failed, see above): unmeasured, so not healthy`);
      continue;
    }
    const units = t.units.filter((u) => u.verdict.outcome !== "passed");
    if (!units.length) failures.push(`${node}: ${t.name}: ${t.outcome}${t.missing?.length ? `: no result came back from ${t.missing.join(", ")}` : ""}`);
    for (const u of units) {
      const host = u.hosts.join(",") || node;
      const missed = u.verdict.checks.filter((c: Check) => !c.ok);
      if (!missed.length) failures.push(`${host}: ${t.name}: ${u.verdict.outcome}: ${oneLine(u.verdict.reason)}`);
      for (const c of missed) failures.push(`${host}: ${t.name}: ${u.verdict.outcome === "error" ? "error: " : ""}${oneLine(c.message)}`);
    }
  }
  if (!failures.length && !results.complete) failures.push(`${node}: the health run did not finish: its verdict is not a pass`);
  // a suite that judged nothing cannot call a node healthy: its tests only recorded the node
  if (!failures.length && judged === 0) failures.push(`${node}: suite ${results.suite.name} judged nothing (no test has a threshold): give --suite one that checks the node`);
  return { healthy: failures.length === 0, failures };
}
