// junit.xml for Jenkins' junit plugin, valid against junit-10.xsd (what the xUnit plugin checks).
// Hand-written like vitest's junit reporter: the format is small and an XML library would not know
// Jenkins' quirks (see test/fixtures/junit/SOURCES.md and the notes beside each choice below).
import { startedCount, UNFINISHED_MESSAGE } from "../execute/not-started.ts";
import { preflightHeadline, preflightLines } from "./preflight-text.ts";
import type { Check, Outcome, PreflightResult, ResultsFile, TestResult, UnitResult } from "../core/types.ts";
import { partChecks, partOutcome } from "../assess/part-checks.ts";
import { partLabel } from "../core/parts.ts";
import { attrs, cdata, escapeText } from "../core/xml.ts";
import type { NodeVerdict } from "../core/isolation.ts";
import { checkMark, humanTail, remediationLines, sharedLogDir, verdictLines } from "./verdict-lines.ts";
import { isFleet } from "./fleet.ts";

interface Case {
  test: TestResult;
  unit: UnitResult | null;
  name: string;
  outcome: Outcome;
  /** a per-component testcase: the part's checks within the unit */
  part?: { checks: Check[] };
  /** a node an isolating pattern judged */
  node?: NodeVerdict;
}

export function renderJunit(results: ResultsFile): string {
  const fleet = isFleet(results);
  const cases = results.tests.flatMap((t) => casesOf(t, fleet));
  const count = (o: Outcome, of = cases) => of.filter((c) => c.outcome === o).length;
  const time = seconds(suiteSeconds(results));
  // a test the run never ended is an error: a killed run must never read green
  // a failed preflight is its own error case: the tests it kept from running are only skipped, and a
  // report of skips alone reads as not failed in Jenkins
  const preflightFailed = results.preflight !== undefined && !results.preflight.passed;
  const pre = preflightFailed ? 1 : 0;
  const counts = { tests: cases.length + pre, failures: count("failed"), errors: count("error") + count("unfinished") + pre };
  const out: string[] = ['<?xml version="1.0" encoding="UTF-8"?>'];
  out.push(`<testsuites${attrs({ name: "gpucheck", ...counts, time })}>`);
  // Jenkins recomputes counts from the testcases, but the xUnit plugin's XSD requires them.
  let preflightCase = pre; // in the first testsuite only
  const suite = (name: string, of: Case[], secs: string, timestamp: string) => {
    const extra = preflightCase;
    out.push(
      `  <testsuite${attrs({ name, tests: of.length + extra, failures: count("failed", of), errors: count("error", of) + count("unfinished", of) + extra, skipped: count("skipped", of), time: secs, timestamp: isoSeconds(timestamp) })}>`,
    );
    out.push("    <properties>");
    for (const [name, value] of properties(results)) out.push(`      <property${attrs({ name, value })}/>`);
    out.push("    </properties>");
    if (extra && results.preflight) out.push(...renderPreflightCase(results, results.preflight));
    preflightCase = 0;
    for (const c of of) out.push(...renderCase(results, c, fleet));
  };
  if (!fleet) suite(results.suite.name, cases, time, results.startedAt);
  else {
    // a fleet: one testsuite per test, so Jenkins' tree opens on ten tests, not on 10,000 nodes
    for (const [i, t] of results.tests.entries()) {
      const of = cases.filter((c) => c.test === t);
      suite(`${results.suite.name}.${t.name}`, of, seconds(t.units.reduce((m, u) => Math.max(m, u.durationS), 0)), t.units[0]?.startedAt ?? results.startedAt);
      if (i < results.tests.length - 1) out.push("  </testsuite>");
    }
    if (results.tests.length === 0) suite(results.suite.name, cases, time, results.startedAt);
  }
  // Jenkins shows the suite's output beside its cases: the preflight says why none ran
  const notes: string[] = results.preflight ? preflightLines(results.preflight) : [];
  if (!results.complete) {
    const why = results.endedAt === null ? "the run is still going or was killed" : (results.stopped ?? "the run was interrupted");
    notes.push(`${why}: ${startedCount(results.tests)} of ${results.tests.length} test${results.tests.length === 1 ? "" : "s"} started`);
  }
  if (notes.length) out.push(`    <system-out>${escapeText(notes.join("\n"))}</system-out>`);
  out.push("  </testsuite>", "</testsuites>", "");
  return out.join("\n");
}

function properties(r: ResultsFile): Array<[string, string]> {
  const props: Array<[string, string | undefined]> = [
    ["cluster", r.suite.cluster],
    ["platform", r.platform],
    ["gpucheck.version", r.gpucheck],
    ["suite.name", r.suite.name],
    ["suite.path", r.suite.path],
    ["suite.sha256", r.suite.sha256],
    ["command", r.command.join(" ")],
    ["complete", String(r.complete)],
    ["outcome", r.outcome],
    ["baseline", r.baseline],
    ["judged.suite.path", r.judgedWith?.path],
    ["judged.suite.sha256", r.judgedWith?.sha256],
    ["judged.at", r.judgedWith?.at],
    ["judged.from.path", r.judgedFrom?.path],
    ["judged.from.sha256", r.judgedFrom?.sha256],
    ["simulated", r.simulated],
  ];
  return props.filter((p): p is [string, string] => p[1] !== undefined);
}

/**
 * One testcase per test, or per unit when the test ran per node (name "<test> [<node>]") or on groups
 * of an isolating pattern ("<test> [2.gpu01+gpu07]"); an isolating test adds one per node, so
 * Jenkins' tree names the bad node ("<test> [node gpu07]").
 */
function casesOf(test: TestResult, fleet: boolean): Case[] {
  if (test.units.length === 0) return [{ test, unit: null, name: test.name, outcome: test.outcome }];
  const single = test.units.length === 1 && !test.perNode;
  // a test stopped between its rounds keeps the rounds it finished, and says it never ended
  const cut: Case[] =
    test.outcome === "unfinished" && test.units.some((u) => u.verdict.outcome !== "unfinished")
      ? [{ test, unit: null, name: `${test.name} [not finished]`, outcome: "unfinished" }]
      : [];
  return cut.concat(
    test.units
      .flatMap((u): Case[] => [
        { test, unit: u, name: single ? test.name : `${test.name} [${u.unit}]`, outcome: u.verdict.outcome },
        // then a testcase per part judged on its own (a GPU, a CPU rank), so Jenkins names the part to replace;
        // in a fleet only the parts that did not pass (8,000 passing GPUs per test would bury them)
        ...partChecks(u)
          .map(({ part, checks }) => ({ test, unit: u, name: `${test.name} [${part.host}] ${partLabel(part)}`, outcome: partOutcome(checks), part: { checks } }))
          .filter((c) => !fleet || c.outcome !== "passed"),
      ])
      .concat((test.isolation?.nodes ?? []).map((n) => ({ test, unit: null, name: `${test.name} [node ${n.node}]`, outcome: NODE_OUTCOME[n.verdict], node: n }))),
  );
}

/** A node an isolation only suspected is not a finding: its testcase passes and says so in its output. */
const NODE_OUTCOME: Record<NodeVerdict["verdict"], Outcome> = { good: "passed", bad: "failed", "suspect-unconfirmed": "error", untested: "error" };

function renderNodeCase(c: Case, n: NodeVerdict, classname: string): string[] {
  const head = `    <testcase${attrs({ name: c.name, classname, time: seconds(0) })}>`;
  const evidence = n.evidence.map(
    (e) =>
      `${e.phase} ${e.group}: ${e.status}${e.value !== null ? `, ${e.value}` : ""}${e.reference !== null ? ` against ${e.reference}` : ""}${e.ratio !== null ? ` (ratio ${e.ratio.toFixed(3)})` : ""}`,
  );
  const body: string[] = [];
  const why = `${n.verdict}: ${n.reason}`;
  if (c.outcome === "failed") body.push(`      <failure${attrs({ message: why, type: "bad-node" })}>${escapeText(evidence.join("\n"))}</failure>`);
  else if (c.outcome === "error") body.push(`      <error${attrs({ message: why, type: "not-judged" })}>${escapeText(evidence.join("\n"))}</error>`);
  body.push(`      <system-out>${cdata(`${[why, ...evidence].join("\n")}\n`)}</system-out>`);
  return [head, ...body, "    </testcase>"];
}

/** The preflight that failed: one error case with its headline, and each node's problems in its output. */
function renderPreflightCase(results: ResultsFile, pre: PreflightResult): string[] {
  const classname = ["gpucheck", results.suite.name, "preflight"].map((p) => p.replace(/\./g, "_")).join(".");
  const secs = seconds(Math.max(0, (Date.parse(pre.endedAt) - Date.parse(pre.startedAt)) / 1000) || 0);
  const lines = preflightLines(pre);
  return [
    `    <testcase${attrs({ name: "preflight", classname, time: secs })}>`,
    `      <error${attrs({ message: `preflight failed: ${preflightHeadline(pre)}`, type: "preflight" })}>${escapeText(lines.join("\n"))}</error>`,
    "    </testcase>",
  ];
}

function renderCase(results: ResultsFile, c: Case, fleet: boolean): string[] {
  // classname "gpucheck.<suite>.<kind>": Jenkins splits packages at dots, so dots inside names go;
  // in a fleet the test's name, so that its class lists the nodes of one test
  const classname = ["gpucheck", results.suite.name, fleet ? c.test.name : c.test.kind].map((p) => p.replace(/\./g, "_")).join(".");
  if (c.part) return renderPartCase(c, c.part.checks, classname);
  if (c.node) return renderNodeCase(c, c.node, classname);
  const head = `    <testcase${attrs({ name: c.name, classname, time: seconds(c.unit?.durationS ?? 0) })}>`;
  const u = c.unit;
  const reason = u?.verdict.reason ?? "no unit of this test ran";
  const body: string[] = [];
  if (c.outcome === "failed") {
    const missed = (u?.verdict.checks ?? []).filter((k) => !k.ok).flatMap((k) => [k.message, ...remediationLines(k)]);
    const type = missed.length > 0 && u!.verdict.checks.filter((k) => !k.ok).every((k) => k.metric === "wrong") ? "correctness" : "threshold";
    body.push(`      <failure${attrs({ message: reason, type })}>${escapeText([...missed, ...whereLines(u)].join("\n"))}</failure>`);
  } else if (c.outcome === "error") {
    body.push(`      <error${attrs({ message: reason, type: errorType(u) })}>${escapeText([reason, ...whereLines(u)].join("\n"))}</error>`);
  } else if (c.outcome === "unfinished") {
    body.push(`      <error${attrs({ message: UNFINISHED_MESSAGE, type: "unfinished" })}/>`);
  } else if (c.outcome === "skipped") {
    body.push(`      <skipped${attrs({ message: reason })}/>`);
  }
  // a testcase has no properties in the JUnit XSD: the stand-in's mark leads its output instead
  body.push(`      <system-out>${cdata(`${u?.simulated ? `SIMULATED: ${u.simulated}\n` : ""}${systemOut(u, reason)}`)}</system-out>`);
  return [head, ...body, "    </testcase>"];
}

/** One part's checks: failing with every missed check's message, an error when one could not be judged. */
function renderPartCase(c: Case, checks: Check[], classname: string): string[] {
  // the unit's case carries the time: a part's time would count the unit's run twice
  const head = `    <testcase${attrs({ name: c.name, classname, time: seconds(0) })}>`;
  const bad = checks.filter((k) => !k.ok).map((k) => k.message);
  const remedies = checks.filter((k) => !k.ok).flatMap(remediationLines);
  const body: string[] = [];
  if (c.outcome === "failed")
    body.push(`      <failure${attrs({ message: bad.join("; "), type: "threshold" })}>${escapeText([...bad, ...remedies, ...whereLines(c.unit)].join("\n"))}</failure>`);
  else if (c.outcome === "error")
    body.push(`      <error${attrs({ message: bad.join("; "), type: "not-judged" })}>${escapeText([...bad, ...whereLines(c.unit)].join("\n"))}</error>`);
  body.push(`      <system-out>${cdata(`${checks.map((k) => `[${checkMark(k)}] ${k.message}`).join("\n")}\n`)}</system-out>`);
  return [head, ...body, "    </testcase>"];
}

/** What kind of error, for a person scanning Jenkins: how the unit ended, or why its output was unusable. */
function errorType(u: UnitResult | null): string {
  if (!u) return "not-run";
  if (u.status === "failed") return "crashed";
  if (u.status !== "completed") return u.status;
  if (!u.measurement) return "unusable-output";
  if (u.measurement.metrics.complete === 0) return "incomplete-output";
  return "not-judged";
}

function whereLines(u: UnitResult | null): string[] {
  if (!u) return [];
  const lines = [`hosts: ${u.hosts.join(", ") || "(none)"}`, `status: ${u.status}${u.message ? ` (${u.message})` : ""}`];
  if (u.logs.length > 0) lines.push(`logs: ${describeLogs(u.logs)}`);
  return lines;
}

/** Eight ranks' logs in one directory read better as the directory and a count. */
function describeLogs(logs: string[]): string {
  const dir = sharedLogDir(logs, 3);
  if (dir === null) return logs.join(", ");
  return `${dir} (${logs.length} files: ${logs[0].slice(dir.length)} … ${logs[logs.length - 1].slice(dir.length)})`;
}

/** The verdict lines, then the log's tail; the full logs stay in files (Jenkins keeps stdout in memory). */
function systemOut(u: UnitResult | null, reason: string): string {
  if (!u) return `${reason}\n`;
  const lines = [...verdictLines(u), ...whereLines(u)];
  const tail = humanTail(u.tail).replace(/\n+$/, "");
  if (tail.trim() !== "") lines.push("--- last lines of the log (telemetry and progress lines only in the full logs) ---", tail);
  return `${lines.join("\n")}\n`;
}

function suiteSeconds(r: ResultsFile): number {
  const start = Date.parse(r.startedAt);
  const end = r.endedAt ? Date.parse(r.endedAt) : NaN;
  if (Number.isFinite(start) && Number.isFinite(end) && end >= start) return (end - start) / 1000;
  return r.tests.reduce((s, t) => s + t.units.reduce((a, u) => a + u.durationS, 0), 0);
}

/** "%.3f": junit-10.xsd allows at most three fraction digits and Jenkins reads "1,5" as 15. */
function seconds(s: number): string {
  return (Number.isFinite(s) && s > 0 ? s : 0).toFixed(3);
}

/** UTC "YYYY-MM-DDTHH:MM:SS": Jenkins appends Z when there is no zone; Ant's schema allows no zone. */
function isoSeconds(iso: string): string | undefined {
  const t = Date.parse(iso);
  return Number.isFinite(t) ? new Date(t).toISOString().slice(0, 19) : undefined;
}
