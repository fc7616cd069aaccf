// The end-of-run table a person reads in the terminal or the Jenkins console: one row per unit with
// its verdict and headline number, then which hosts failed and why. A fleet's test (more than
// FLEET_UNITS units) is told by exception: a row for each unit that did not pass, and one for all
// that did, as hostlist ranges with the span of their headline.
import { startedCount } from "../execute/not-started.ts";
import type { Outcome, ResultsFile, TestResult, UnitResult } from "../core/types.ts";
import { xmlSafe } from "../core/xml.ts";
import { formatDuration } from "../core/quantity.ts";
import { headlineFor, headlineSpan } from "./headline.ts";
import { compressHostlist } from "../core/hostlist.ts";
import { FLEET_UNITS } from "./fleet.ts";
import { preflightLines } from "./preflight-text.ts";
import { partChecks, partOutcome } from "../assess/part-checks.ts";
import { badNodesLine, isolatedTests, isolationLines } from "./isolation-text.ts";
import { remediationSummary } from "./verdict-lines.ts";

const COLOUR: Record<Outcome, string> = { passed: "\x1b[32m", failed: "\x1b[31m", error: "\x1b[1;35m", skipped: "\x1b[33m", unfinished: "\x1b[1;35m" };
const RESET = "\x1b[0m";

export function renderSummary(results: ResultsFile, opts: { color: boolean }): string {
  const paint = (o: Outcome, text: string) => (opts.color ? `${COLOUR[o]}${text}${RESET}` : text);
  const rows: string[][] = [["TEST", "UNIT", "VERDICT", "HEADLINE", "THRESHOLD", "DURATION"]];
  const outcomes: Outcome[] = [];
  for (const t of results.tests) {
    const fleet = t.units.length > FLEET_UNITS;
    for (const u of t.units) {
      if (fleet && u.verdict.outcome === "passed") continue;
      const h = headlineFor(t, u);
      outcomes.push(u.verdict.outcome);
      // nothing to judge against: recorded, never read as a pass
      const recorded = u.verdict.outcome === "passed" && u.verdict.checks.length === 0 && t.expect.length === 0;
      rows.push([t.name, u.unit, recorded ? "RECORDED (no thresholds)" : u.verdict.outcome.toUpperCase(), h.value, h.threshold, formatDuration(u.durationS)]);
    }
    const passed = fleet ? t.units.filter((u) => u.verdict.outcome === "passed") : [];
    if (passed.length) {
      const h = headlineSpan(t, passed);
      outcomes.push("passed");
      const longest = Math.max(...passed.map((u) => u.durationS));
      rows.push([t.name, `${compressHostlist(passed.map((u) => u.unit))} (${plural(passed.length, "node")})`, "PASSED", h.value, h.threshold, `≤ ${formatDuration(longest)}`]);
    }
  }
  const widths = rows[0].map((_, c) => Math.max(...rows.map((r) => r[c].length)));
  const lines = rows.map((r, i) => {
    const cells = r.map((cell, c) => (c === r.length - 1 ? cell : cell.padEnd(widths[c])));
    // pad first, colour after: escape codes have no width on screen
    if (i > 0) cells[2] = paint(outcomes[i - 1], cells[2]);
    return cells.join("  ").trimEnd();
  });

  const out = [
    headerLine(results, paint),
    ...(results.simulated ? [`SIMULATED: ${results.simulated}`] : []),
    ...(results.rerunOf ? [`rerun of ${results.rerunOf.path} (its failed, errored and skipped tests)`] : []),
    "",
  ];
  if (results.preflight) out.push(...preflightLines(results.preflight), "");
  out.push(...lines);
  const failing = failingHosts(results);
  if (failing.length > 0) out.push("", "Failing hosts:", ...alignPairs(failing));
  const parts = failingParts(results);
  if (parts.length > 0) out.push("", "Failing components:", ...parts.map((line) => `  ${line}`));
  const remedies = remediations(results);
  if (remedies.length > 0) out.push("", "Remediation (docs/remediation.md):", ...alignPairs(remedies));
  const isolated = isolatedTests(results);
  if (isolated.length) out.push("", "Isolation:", ...isolated.flatMap((t) => isolationLines(t).map((l) => `  ${l}`)));
  const missing = results.tests.filter((t) => t.missing?.length);
  if (missing.length)
    out.push("", "Missing (no result came back, never counted passed):", ...missing.map((t) => `  ${t.name}: ${plural(t.missing!.length, "node")}: ${t.missing!.join(", ")}`));
  const skipped = unitsWith(results, ["skipped"]);
  if (skipped.length > 0) out.push("", "Skipped:", ...alignPairs(skipped));
  if (results.endedAt === null) {
    const never = neverEnded(results);
    out.push(
      "",
      `INCOMPLETE: the run never ended (killed, or still going): ${never.length ? `${plural(never.length, "test")} never ended: ${never.join(", ")}` : "every test ended, but the run was not closed"}.`,
    );
  } else if (!results.complete) {
    const why = results.stopped ? ` (${results.stopped})` : "";
    out.push("", `Run incomplete: ${plural(startedCount(results.tests), "test")} of ${results.tests.length} started before it stopped${why}.`);
  }
  // last, where a person scrolling the console looks first
  const bad = badNodesLine(results);
  if (bad) out.push("", bad);
  return `${out.join("\n")}\n`;
}

/** The tests a run written ahead still lists as unfinished. */
export function neverEnded(r: ResultsFile): string[] {
  return r.tests.filter((t) => t.outcome === "unfinished").map((t) => t.name);
}

function headerLine(r: ResultsFile, paint: (o: Outcome, t: string) => string): string {
  const units = r.tests.flatMap((t) => t.units);
  const n = (o: Outcome) => units.filter((u) => u.verdict.outcome === o).length;
  const where = r.suite.cluster ? ` on ${r.suite.cluster}` : "";
  const counts = (["passed", "failed", "error", "skipped", "unfinished"] as const).filter((o) => n(o) > 0).map((o) => (o === "error" ? plural(n(o), "error") : `${n(o)} ${o}`));
  const simulated = r.simulated ? " (SIMULATED WORKLOAD)" : "";
  // a run with no end was killed (or is still going): whatever its finished tests say, it is no verdict
  const verdict = r.endedAt === null ? paint("unfinished", "INCOMPLETE") : paint(r.outcome, r.outcome.toUpperCase());
  return `gpucheck ${r.suite.name}${where} (${r.platform}): ${verdict}${simulated}: ${counts.join(", ") || "nothing ran"}`;
}

/**
 * Per-node units name their host exactly; a whole-cluster unit that failed cannot say which of its
 * hosts was at fault, so it lists them all and says so.
 */
function failingHosts(r: ResultsFile): Array<[string, string]> {
  return unitsWith(r, ["failed", "error"]);
}

/** Each part judged on its own that failed or could not be judged, with its checks' messages (each names the part). */
function failingParts(r: ResultsFile): string[] {
  return r.tests.flatMap((t) =>
    t.units.flatMap((u) =>
      partChecks(u)
        .filter((p) => partOutcome(p.checks) !== "passed")
        .map(
          (p) =>
            `${t.name}: ${partOutcome(p.checks)}: ${oneLine(
              p.checks
                .filter((c) => !c.ok)
                .map((c) => c.message)
                .join("; "),
            )}`,
        ),
    ),
  );
}

/** Each failed unit's distinct remediations, by its hosts: what to do next, naming the part. */
function remediations(r: ResultsFile): Array<[string, string]> {
  return r.tests.flatMap((t) => t.units.flatMap((u) => remediationSummary(u.verdict.checks).map((line): [string, string] => [hostsOf(t, u), `${t.name}: ${oneLine(line)}`])));
}

function unitsWith(r: ResultsFile, outcomes: Outcome[]): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  for (const t of r.tests) {
    for (const u of t.units) {
      if (!outcomes.includes(u.verdict.outcome)) continue;
      out.push([hostsOf(t, u), `${t.name}: ${u.verdict.outcome}: ${oneLine(u.verdict.reason)}`]);
    }
  }
  return out;
}

/** Reasons quote workload output; on a terminal its escape codes and newlines would wreck the table. */
function oneLine(s: string): string {
  return xmlSafe(s).replace(/\s+/g, " ").trim();
}

function hostsOf(t: TestResult, u: UnitResult): string {
  // a fabric test runs on no node: its findings name cables, so the row says where they are
  if (u.hosts.length === 0) return t.perNode && u.unit !== "all" ? u.unit : t.kind === "fabric" ? "(the fabric)" : "(no host)";
  if (u.hosts.length === 1) return u.hosts[0];
  // a group of an isolating pattern: the isolation below says which of its hosts is at fault
  if (t.isolation && u.unit !== "all") return `${u.hosts.join("+")} (round ${u.unit.split(".")[0]})`;
  return `${u.hosts.join(",")} (whole test)`;
}

function alignPairs(pairs: Array<[string, string]>): string[] {
  const w = Math.max(...pairs.map(([h]) => h.length));
  return pairs.map(([h, why]) => `  ${h.padEnd(w)}  ${why}`);
}

/** "1 test", "2 tests" */
function plural(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? "" : "s"}`;
}
