// ctrf.json: the run in the Common Test Report Format (ctrf.io, schema/ctrf.schema.json of
// github.com/ctrf-io/ctrf; a copy is test/fixtures/ctrf/), the test-report format that CTRF's CI
// plugins and NVIDIA's AI Cluster Runtime attestations carry. The same testcases as junit.xml: one
// per test or unit, one per part judged on its own (a GPU, a NIC, a link: named with its node), one
// per node an isolating test judged. A pure function of results.json (no clock, no random id), so
// `gpucheck report` rewrites it byte for byte and a signature over it stays good.
import type { Check, ResultsFile, TestResult, UnitResult } from "../core/types.ts";
import { remediationLines } from "./verdict-lines.ts";
import type { NodeVerdict } from "../core/isolation.ts";
import { partChecks, partOutcome } from "../assess/part-checks.ts";
import { partLabel, partName } from "../core/parts.ts";
import { isFleet } from "./fleet.ts";
import { preflightHeadline, preflightLines } from "./preflight-text.ts";
import { type AnyOutcome, UNFINISHED_MESSAGE, runPassed, unknownOutcome } from "./outcome-kinds.ts";

/** The CTRF version written: the specification is a pre-1.0 working draft whose own examples say 0.0.0. */
export const CTRF_SPEC_VERSION = "0.0.0";

type Status = "passed" | "failed" | "skipped" | "pending" | "other";

interface CtrfTest {
  name: string;
  status: Status;
  duration: number;
  start?: number;
  stop?: number;
  suite: string[];
  message?: string;
  rawStatus: string;
  type: string;
  labels?: Record<string, string | number>;
  stdout?: string[];
  extra?: Record<string, unknown>;
}

/**
 * gpucheck's outcome as a CTRF status. An error (a crash, a value that could not be measured) is
 * "failed": CTRF has no error, and its readers count failures, so "other" would read as green. A test
 * that never ended is "other" with the message saying so; the run's summary.extra and environment
 * say the run is not healthy.
 */
function status(o: AnyOutcome): { status: Status; message?: string } {
  switch (o) {
    case "passed":
      return { status: "passed" };
    case "failed":
      return { status: "failed" };
    case "error":
      return { status: "failed" };
    case "skipped":
      return { status: "skipped" };
    case "unfinished":
      return { status: "other", message: UNFINISHED_MESSAGE };
    default:
      return unknownOutcome(o);
  }
}

const ms = (iso: string | null | undefined): number | undefined => {
  const t = iso ? Date.parse(iso) : NaN;
  return Number.isFinite(t) ? t : undefined;
};

export function renderCtrf(results: ResultsFile): string {
  const fleet = isFleet(results);
  // a failed preflight is its own failed test, first, as in junit.xml: skips alone read as not failed
  const pre = results.preflight && !results.preflight.passed ? [preflightTest(results)] : [];
  const tests = [...pre, ...results.tests.flatMap((t) => testsOf(results, t, fleet))];
  const count = (s: Status) => tests.filter((t) => t.status === s).length;
  const start = ms(results.startedAt) ?? 0;
  // a run still going or killed has no end: the last moment it is known to have been alive
  const ends = results.tests.flatMap((t) => t.units.map((u) => ms(u.endedAt) ?? 0));
  const stop = ms(results.endedAt) ?? Math.max(start, ...ends);
  const passed = runPassed(results);
  const doc = {
    reportFormat: "CTRF",
    specVersion: CTRF_SPEC_VERSION,
    runId: `${results.suite.name}@${results.startedAt}`,
    timestamp: results.endedAt ?? results.startedAt,
    generatedBy: `gpucheck ${results.gpucheck}`,
    results: {
      tool: { name: "gpucheck", version: results.gpucheck },
      summary: {
        tests: tests.length,
        passed: count("passed"),
        failed: count("failed"),
        skipped: count("skipped"),
        pending: count("pending"),
        other: count("other"),
        suites: results.tests.length,
        start,
        stop,
        duration: Math.max(0, stop - start),
        extra: {
          "gpucheck.outcome": results.endedAt === null || !results.complete ? "incomplete" : results.outcome,
          "gpucheck.complete": results.complete,
          "gpucheck.ended": results.endedAt !== null,
          ...(results.stopped ? { "gpucheck.stopped": results.stopped } : {}),
        },
      },
      tests,
      environment: {
        reportName: results.suite.name,
        ...(results.suite.cluster ? { appName: results.suite.cluster } : {}),
        healthy: passed,
        extra: {
          "gpucheck.platform": results.platform,
          "gpucheck.suite.path": results.suite.path,
          "gpucheck.suite.sha256": results.suite.sha256,
          "gpucheck.command": results.command.join(" "),
          ...(results.simulated ? { "gpucheck.simulated": results.simulated } : {}),
        },
      },
    },
  };
  return `${JSON.stringify(doc, null, 2)}\n`;
}

function preflightTest(results: ResultsFile): CtrfTest {
  const pre = results.preflight!;
  const start = ms(pre.startedAt);
  const stop = ms(pre.endedAt);
  return {
    name: "preflight",
    status: "failed",
    message: `preflight failed: ${preflightHeadline(pre)}`,
    rawStatus: "error",
    duration: start !== undefined && stop !== undefined ? Math.max(0, stop - start) : 0,
    ...(start !== undefined ? { start } : {}),
    ...(stop !== undefined ? { stop } : {}),
    suite: [results.suite.name, "preflight"],
    type: "gpucheck-preflight",
    stdout: preflightLines(pre),
  };
}

/** One CTRF test per JUnit testcase (lib/report/junit.ts): in a fleet, parts only when they did not pass. */
function testsOf(results: ResultsFile, t: TestResult, fleet: boolean): CtrfTest[] {
  const suite = [results.suite.name, t.name];
  const labels = { "gpucheck.kind": t.kind };
  // a test with no unit: planned and never started (written ahead), or none of its units came back
  if (t.units.length === 0) {
    const s = status(t.outcome);
    const message = s.message ?? (t.missing?.length ? `no result came back from ${t.missing.join(", ")}` : undefined);
    return [{ name: t.name, ...s, ...(message ? { message } : {}), rawStatus: t.outcome, duration: 0, suite, type: "gpucheck", labels }];
  }
  const single = t.units.length === 1 && !t.perNode;
  const out: CtrfTest[] = [];
  for (const u of t.units) {
    out.push(unitTest(u, single ? t.name : `${t.name} [${u.unit}]`, suite, labels));
    for (const { part, checks } of partChecks(u)) {
      const o = partOutcome(checks);
      if (fleet && o === "passed") continue;
      const bad = checks.filter((k) => !k.ok).map((k) => k.message);
      const remedies = checks.flatMap((k) => (k.remediation ? [k.remediation] : []));
      out.push({
        ...(remedies.length ? { extra: { "gpucheck.remediation": remedies } } : {}),
        name: `${t.name} [${part.host}] ${partLabel(part)}`,
        ...status(o),
        ...(bad.length ? { message: bad.join("; ") } : {}),
        rawStatus: o,
        // the unit's test carries the time: a part's would count the unit's run twice
        duration: 0,
        suite: [...suite, part.host],
        type: "gpucheck-part",
        labels: { ...labels, "gpucheck.node": part.host, "gpucheck.part": partName(part), ...(part.uuid ? { "gpucheck.uuid": part.uuid } : {}) },
        stdout: checks.map(checkLine),
      });
    }
  }
  // a planned node whose result never came back is named, never left out (junit.xml counts it in the test's error)
  for (const m of t.missing ?? [])
    out.push({
      name: `${t.name} [${m}]`,
      ...status("error"),
      message: `no result came back from ${m}: never counted passed`,
      rawStatus: "error",
      duration: 0,
      suite,
      type: "gpucheck",
      labels: { ...labels, "gpucheck.unit": m },
    });
  for (const n of t.isolation?.nodes ?? []) out.push(nodeTest(t, n, suite, labels));
  return out;
}

function unitTest(u: UnitResult, name: string, suite: string[], labels: Record<string, string>): CtrfTest {
  const s = status(u.verdict.outcome);
  const start = ms(u.startedAt);
  const stop = ms(u.endedAt);
  const message = s.message ?? (u.verdict.outcome === "passed" ? undefined : u.verdict.reason);
  return {
    name,
    ...s,
    ...(message ? { message } : {}),
    rawStatus: u.verdict.outcome,
    duration: Math.max(0, Math.round(u.durationS * 1000)),
    ...(start !== undefined ? { start } : {}),
    ...(stop !== undefined ? { stop } : {}),
    suite,
    type: "gpucheck",
    labels: { ...labels, "gpucheck.unit": u.unit, "gpucheck.hosts": u.hosts.join(",") },
    stdout: [...(u.simulated ? [`SIMULATED: ${u.simulated}`] : []), u.verdict.reason, ...u.verdict.checks.flatMap((k) => [checkLine(k), ...remediationLines(k)])],
    ...unitExtra(u),
  };
}

/** A node an isolation only suspected is no finding (as in junit.xml); one it never tested is an error. */
const NODE_OUTCOME: Record<NodeVerdict["verdict"], AnyOutcome> = { good: "passed", bad: "failed", "suspect-unconfirmed": "error", untested: "error" };

function nodeTest(t: TestResult, n: NodeVerdict, suite: string[], labels: Record<string, string>): CtrfTest {
  const o = NODE_OUTCOME[n.verdict];
  const why = `${n.verdict}: ${n.reason}`;
  return {
    name: `${t.name} [node ${n.node}]`,
    ...status(o),
    message: why,
    rawStatus: n.verdict,
    duration: 0,
    suite: [...suite, n.node],
    type: "gpucheck-node",
    labels: { ...labels, "gpucheck.node": n.node },
  };
}

/** gpucheck's own fields of a unit's test: how the platform saw it end, and what to do about each missed check. */
function unitExtra(u: UnitResult): { extra?: Record<string, unknown> } {
  const remedies = u.verdict.checks.flatMap((k) => (k.remediation ? [k.remediation] : []));
  const extra = {
    ...(u.status !== "completed" || u.message ? { "gpucheck.status": u.status, ...(u.message ? { "gpucheck.message": u.message } : {}) } : {}),
    ...(remedies.length ? { "gpucheck.remediation": remedies } : {}),
  };
  return Object.keys(extra).length ? { extra } : {};
}

const checkLine = (k: Check) => `[${k.ok ? "ok" : k.measured === null ? "not measured" : "missed"}] ${k.message}`;
