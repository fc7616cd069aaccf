// metrics.prom: the run's judged values for Prometheus, in the text format node_exporter's textfile
// collector reads (copy or link it into --collector.textfile.directory). Every family is a gauge with
// HELP and TYPE, no timestamps (the textfile collector refuses them), no blank lines, and `# EOF` last
// so that OpenMetrics parsers read it too (the Prometheus text parser takes that line as a comment);
// `promtool check metrics` accepts it (test/integration/e2e). The metric a check judged is a label,
// not part of the family's name: gpucheck's metric names carry units (busbw GB/s) that Prometheus'
// naming rules would reject, and one family lets Grafana chart every check of a run.
import type { MetricCheck, ResultsFile, TestResult, UnitResult } from "../core/types.ts";
import { partLabel } from "../core/parts.ts";
import { type AnyOutcome, runPassed, unknownOutcome } from "./outcome-kinds.ts";

/** The verdict label: gpucheck's own outcome words, one by one, so that none is read as another. */
function verdict(o: AnyOutcome): string {
  switch (o) {
    case "passed":
    case "failed":
    case "error":
    case "skipped":
    case "unfinished":
      return o;
    default:
      return unknownOutcome(o);
  }
}

type Labels = Record<string, string | undefined>;

/** A label value as the text format escapes it: backslash, double quote and newline. */
const escapeLabel = (v: string) => (/[\\"\n]/.test(v) ? v.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n") : v);

function sample(name: string, labels: Labels, value: number): string {
  const set = Object.entries(labels)
    .filter((e): e is [string, string] => e[1] !== undefined && e[1] !== "")
    .map(([k, v]) => `${k}="${escapeLabel(v)}"`)
    .join(",");
  return `${name}${set ? `{${set}}` : ""} ${formatValue(value)}`;
}

/** Go's ParseFloat forms: NaN for a value that could not be measured, never a made-up 0. */
function formatValue(v: number): string {
  if (Number.isNaN(v)) return "NaN";
  if (v === Infinity) return "+Inf";
  if (v === -Infinity) return "-Inf";
  return String(v);
}

class Families {
  private readonly order: string[] = [];
  private readonly lines = new Map<string, { help: string; samples: string[]; seen: Set<string> }>();
  add(name: string, help: string, labels: Labels, value: number): void {
    let f = this.lines.get(name);
    if (!f) {
      f = { help, samples: [], seen: new Set() };
      this.lines.set(name, f);
      this.order.push(name);
    }
    const line = sample(name, labels, value);
    // the same series twice (one bound checked twice) would make the textfile collector drop the file
    const key = line.slice(0, line.lastIndexOf(" "));
    if (f.seen.has(key)) return;
    f.seen.add(key);
    f.samples.push(line);
  }
  render(): string {
    const out: string[] = [];
    for (const name of this.order) {
      const f = this.lines.get(name)!;
      out.push(`# HELP ${name} ${f.help.replace(/\\/g, "\\\\").replace(/\n/g, "\\n")}`, `# TYPE ${name} gauge`, ...f.samples);
    }
    out.push("# EOF", "");
    return out.join("\n");
  }
}

const HELP = {
  info: "the gpucheck run these metrics come from (always 1): suite, cluster, platform, gpucheck version, outcome",
  passed: "1 when the run ended, every test finished and every test passed; 0 otherwise (a killed or partial run is never passed)",
  start: "when the run started, seconds since the Unix epoch",
  end: "when the run ended, seconds since the Unix epoch (absent while running or when killed)",
  test: "1 when the test's unit (a node, a group, or the whole cluster) passed, 0 otherwise; its verdict is the label",
  check: "the value each threshold judged, per unit and per part (GPU, NIC, link), with the check's verdict; NaN when not measured",
  node: "1 when an isolating test found the node good, 0 otherwise; its verdict (good, bad, suspect-unconfirmed, untested) is the label",
} as const;

export function renderMetricsProm(results: ResultsFile): string {
  const f = new Families();
  const run = { suite: results.suite.name, cluster: results.suite.cluster };
  const ended = results.endedAt !== null && results.complete;
  f.add("gpucheck_run_info", HELP.info, { ...run, platform: results.platform, version: results.gpucheck, outcome: ended ? verdict(results.outcome) : "incomplete" }, 1);
  f.add("gpucheck_run_passed", HELP.passed, run, runPassed(results) ? 1 : 0);
  const start = Date.parse(results.startedAt);
  if (Number.isFinite(start)) f.add("gpucheck_run_start_timestamp_seconds", HELP.start, run, start / 1000);
  const end = results.endedAt ? Date.parse(results.endedAt) : NaN;
  if (Number.isFinite(end)) f.add("gpucheck_run_end_timestamp_seconds", HELP.end, run, end / 1000);
  for (const t of results.tests) addTest(f, run, t);
  return f.render();
}

function addTest(f: Families, run: Labels, t: TestResult): void {
  const test = { ...run, test: t.name, kind: t.kind };
  if (t.units.length === 0) {
    f.add("gpucheck_test_passed", HELP.test, { ...test, verdict: verdict(t.outcome) }, t.outcome === "passed" ? 1 : 0);
    return;
  }
  for (const u of t.units) {
    const unit = { ...test, unit: u.unit, node: nodeOf(u) };
    f.add("gpucheck_test_passed", HELP.test, { ...unit, verdict: verdict(u.verdict.outcome) }, u.verdict.outcome === "passed" ? 1 : 0);
    for (const c of u.verdict.checks) {
      if (c.metric === "transport") continue; // not a number: its verdict is in the unit's
      const m = c as MetricCheck;
      const part = m.part ? { node: m.part.host, part: partLabel(m.part), uuid: m.part.uuid } : {};
      const v = m.measured === null ? "error" : m.ok ? "passed" : "failed";
      f.add(
        "gpucheck_check_value",
        HELP.check,
        { ...unit, ...part, metric: m.metric, metric_unit: m.unit, expectation: m.expectation, expected: String(m.expected), verdict: v },
        m.measured ?? NaN,
      );
    }
  }
  // a planned node whose result never came back: an error sample of its own, never a gap Grafana reads as fine
  for (const m of t.missing ?? []) f.add("gpucheck_test_passed", HELP.test, { ...test, unit: m, node: m, verdict: verdict("error") }, 0);
  for (const n of t.isolation?.nodes ?? []) f.add("gpucheck_node_good", HELP.node, { ...test, node: n.node, verdict: n.verdict }, n.verdict === "good" ? 1 : 0);
}

/** The node a unit ran on, when it is one (per-node tests); a whole-cluster or group unit is named by `unit`. */
const nodeOf = (u: UnitResult) => (u.hosts.length === 1 ? u.hosts[0] : undefined);
