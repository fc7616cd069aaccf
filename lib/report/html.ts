// report.html: one self-contained page (inline style, inline SVG, one small inline script, a CSP
// that forbids fetching anything) with the verdicts, the plots, each unit's checks and log tail, and
// the node inventory.
import type { Check, NodeInventory, Outcome, PreflightResult, ResultsFile, TelemetrySummary, TestResult, UnitResult } from "../core/types.ts";
import { escapeAttr, escapeText } from "../core/xml.ts";
import { formatDuration, withUnit } from "../core/quantity.ts";
import { headlineFor } from "./headline.ts";
import { renderPlot } from "../core/plot-svg.ts";
import { plotsForTest } from "./test-plots.ts";
import { checkMark, humanTail, sharedLogDir } from "./verdict-lines.ts";
import { CSP, SCRIPT, STYLE } from "./html-assets.ts";
import { transportAccount } from "../parsers/nccl-info.ts";
import { nodeProbes, preflightHeadline } from "./preflight-text.ts";
import { kindOf } from "../kinds/mod.ts";
import { componentTable } from "./html-components.ts";
import { isolationSection } from "./isolation-html.ts";
import { isFleet } from "./fleet.ts";
import { fleetInventory, fleetSection, fleetView } from "./html-fleet.ts";
import { compressHostlist } from "../core/hostlist.ts";

const h = escapeText;
const badge = (o: Outcome) => `<span class="badge ${o}">${o.toUpperCase()}</span>`;

export function renderHtml(r: ResultsFile): string {
  const title = `gpucheck ${r.suite.name}: ${r.outcome.toUpperCase()}`;
  // a fleet's page is by exception: the nodes that need a look, the rest as counts and ranges
  const fleet = isFleet(r);
  return [
    "<!DOCTYPE html>",
    '<html lang="en">',
    "<head>",
    '<meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="${escapeAttr(CSP)}">`,
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${h(title)}</title>`,
    `<style>${STYLE}</style>`,
    "</head>",
    `<body data-outcome="${r.outcome}">`,
    header(r),
    ...(r.preflight ? [preflightSection(r.preflight, fleet)] : []),
    fleet ? fleetSection(fleetView(r)) : verdictTable(r),
    ...r.tests.map((t, i) => testSection(t, i, fleet)),
    fleet ? fleetInventory(r) : inventory(r.inventory),
    `<footer class="muted"><p>Written by gpucheck ${h(r.gpucheck)} from results.json (schema version ${r.schemaVersion}). Raw logs are under logs/ beside this file.</p></footer>`,
    `<script>${SCRIPT}</script>`,
    "</body>",
    "</html>",
    "",
  ].join("\n");
}

function header(r: ResultsFile): string {
  const end = r.endedAt ? Date.parse(r.endedAt) : NaN;
  const took = Number.isFinite(end) ? formatDuration((end - Date.parse(r.startedAt)) / 1000) : "still running or interrupted";
  const rows: Array<[string, string | undefined]> = [
    ["suite", `${r.suite.name}${r.suite.description ? ` (${r.suite.description})` : ""}`],
    ["cluster", r.suite.cluster],
    ["platform", r.platform],
    ["started", r.startedAt],
    ["ended", r.endedAt ?? undefined],
    ["duration", took],
    ["complete", r.complete ? "yes" : `no: the run stopped before every test finished${r.stopped ? ` (${r.stopped})` : ""}`],
    ["suite file", `${r.suite.path} (sha256 ${r.suite.sha256})`],
    ["command", r.command.join(" ")],
    ["baseline", r.baseline],
    ["judged with", r.judgedWith ? `${r.judgedWith.path} (sha256 ${r.judgedWith.sha256}) at ${r.judgedWith.at}` : undefined],
    ["judged from", r.judgedFrom ? `${r.judgedFrom.path} (results.json sha256 ${r.judgedFrom.sha256})` : undefined],
    ["rerun of", r.rerunOf ? `${r.rerunOf.path} (results.json sha256 ${r.rerunOf.sha256}): its failed, errored and skipped tests` : undefined],
    ["gpucheck", r.gpucheck],
    ["SIMULATED", r.simulated],
  ];
  const dl = rows
    .filter((x) => x[1] !== undefined)
    .map(([k, v]) => `<dt>${h(k)}</dt><dd>${h(v as string)}</dd>`)
    .join("");
  const simulated = r.simulated ? ` <span class="badge error">SIMULATED WORKLOAD</span>` : "";
  return `<header><h1>gpucheck · ${h(r.suite.name)} ${badge(r.outcome)}${simulated}</h1><dl class="meta">${dl}</dl></header>`;
}

/** Each node's preflight: what it offers, and what keeps the tests from it. */
function preflightSection(pre: PreflightResult, fleet: boolean): string {
  const passed = pre.nodes.filter((n) => n.passed).map((n) => n.node);
  const rows = (fleet ? pre.nodes.filter((n) => !n.passed) : pre.nodes).map((n) => {
    const problems = n.problems.length ? `<ul class="checks">${n.problems.map((p) => `<li class="unjudged">${h(p.message)}</li>`).join("")}</ul>` : "";
    const logs = logLinks(n.logs);
    return `<tr data-outcome="${n.passed ? "passed" : "error"}"><td>${h(n.node)}</td><td>${badge(n.passed ? "passed" : "error")}</td><td>${h(nodeProbes(n))}${problems}${logs ? `<p class="muted">logs: ${logs}</p>` : ""}</td></tr>`;
  });
  const rest = fleet && passed.length ? `<p>${badge("passed")} ${passed.length}: <span class="mono hostlist">${h(compressHostlist(passed))}</span></p>` : "";
  const table = rows.length ? `<table class="verdicts"><tr><th>node</th><th>verdict</th><th>found</th></tr>${rows.join("")}</table>` : "";
  return `<section id="preflight"><h2>Preflight</h2><p>${h(preflightHeadline(pre))}</p>${table}${rest}</section>`;
}

function verdictTable(r: ResultsFile): string {
  const rows = r.tests.flatMap((t, i) =>
    t.units.map((u) => {
      const hl = headlineFor(t, u);
      return `<tr data-outcome="${u.verdict.outcome}"><td><a href="#test-${i}">${h(t.name)}</a></td><td>${h(u.unit)}</td><td>${badge(u.verdict.outcome)}</td><td class="num">${h(hl.value)}</td><td class="num">${h(hl.threshold)}</td><td class="num">${h(formatDuration(u.durationS))}</td><td>${h(u.verdict.reason)}</td></tr>`;
    }),
  );
  const head = "<tr><th>test</th><th>unit</th><th>verdict</th><th>headline</th><th>threshold</th><th>duration</th><th>why</th></tr>";
  return `<section id="verdicts"><h2>Verdicts</h2><table class="verdicts">${head}${rows.join("")}</table></section>`;
}

/** The units a fleet's test shows in full: those that did not pass (at most FLEET_SHOWN); the rest are a count and ranges. */
const FLEET_SHOWN = 50;

function testSection(t: TestResult, i: number, fleet: boolean): string {
  const shown = fleet && t.units.length > 1 ? t.units.filter((u) => u.verdict.outcome !== "passed").slice(0, FLEET_SHOWN) : t.units;
  // a fleet's curves: the units shown and one passing unit for comparison, not a thousand lines
  const typical = t.units.find((u) => u.verdict.outcome === "passed");
  const plotted = fleet && t.units.length > 1 ? { ...t, units: [...shown.slice(0, 8), ...(typical ? [typical] : [])] } : t;
  const plots = plotsForTest(plotted, i).map(renderPlot);
  const shape = `${t.kind} · ${t.nodes} node(s) × ${t.gpusPerNode} GPU(s), world size ${t.worldSize}${t.perNode ? " · per node" : ""}`;
  return [
    `<section class="test" id="test-${i}" data-test="${escapeAttr(t.name)}" data-outcome="${t.outcome}">`,
    `<h2>${h(t.name)} ${badge(t.outcome)}</h2>`,
    `<p class="muted">${h(shape)}${t.expect.length ? ` · thresholds: ${h(t.expect.map((e) => e.text).join("; "))}` : ""}</p>`,
    ...(t.isolation ? [isolationSection(t.isolation, t.headline.unit)] : []),
    plots.length ? `<div class="plots">${plots.join("\n")}</div>` : `<p class="muted">No plottable data.</p>`,
    ...(t.launch ? [launchBlock(t.launch)] : []),
    ...(shown !== t.units ? [unitsNotShown(t, shown)] : []),
    ...shown.map((u) => unitBlock(t, u)),
    "</section>",
  ].join("\n");
}

/** A fleet's test: what its units came to, with the passing nodes as ranges, above the units shown in full. */
function unitsNotShown(t: TestResult, shown: UnitResult[]): string {
  const passed = t.units.filter((u) => u.verdict.outcome === "passed");
  const hidden = t.units.length - passed.length - shown.length;
  const hosts = passed.flatMap((u) => u.hosts);
  const lines = [`${passed.length} of ${t.units.length} units passed${hosts.length ? `: <span class="mono hostlist">${h(compressHostlist(hosts))}</span>` : ""}.`];
  if (shown.length) lines.push(`The ${shown.length} that did not are below${hidden > 0 ? `, and ${hidden} more (the table of nodes above lists them)` : ""}.`);
  return `<p>${lines.join(" ")}</p>`;
}

/** The command and environment as run, so one test can be rerun by hand on a node. */
function launchBlock(l: NonNullable<TestResult["launch"]>): string {
  const env = Object.entries(l.env).map(([k, v]) => `${k}=${v}`);
  return `<details class="launch"><summary>command and environment</summary><pre>${h([...env, l.command.join(" ")].join("\n"))}</pre></details>`;
}

function telemetryLine(t: TelemetrySummary): string {
  const parts = [`${t.samples} samples`];
  if (t.maxTempC !== null) parts.push(`hottest GPU ${withUnit(t.maxTempC, "°C")}`);
  if (t.maxPowerW !== null) parts.push(`peak GPU power ${withUnit(t.maxPowerW, "W")}`);
  if (t.meanUtilPct !== null) parts.push(`mean GPU utilisation ${withUnit(t.meanUtilPct, "%")}`);
  if (t.maxTempC === null && t.maxPowerW === null && t.meanUtilPct === null) parts.push(t.series?.cpu_util_pct ? "no GPU readings (CPU load plotted)" : "no GPU readings");
  if (t.xids.length) parts.push(`Xid events: ${t.xids.join(", ")}`);
  if (t.throttleReasons.length) parts.push(`throttled: ${t.throttleReasons.join(", ")}`);
  return parts.join(" · ");
}

/** NCCL's account of the connections (lib/parsers/nccl-info.ts), or why there is none. */
function transportLine(u: UnitResult): string {
  const m = u.measurement;
  if (!m) return "";
  const why = m.unmeasured?.transport;
  if (m.transport && !why) return transportAccount(m.transport);
  return why ? `not known: ${why}` : "";
}

/** A missed check's remediation under its message: the class, the action naming the part, and the source. */
function remediationHtml(c: Check): string {
  const r = c.remediation;
  return r ? `<br><span class="remediation">remediation (${h(r.class)}): ${h(r.action)} <span class="muted">source: ${h(r.source)}</span></span>` : "";
}

function unitBlock(t: TestResult, u: UnitResult): string {
  const checks = u.verdict.checks.map((c) => `<li class="${c.ok ? "ok" : checkMark(c) === "MISSED" ? "missed" : "unjudged"}">${h(c.message)}${remediationHtml(c)}</li>`).join("");
  const logs = logLinks(u.logs);
  const tel = u.telemetry && u.telemetry.samples > 0 ? `<p class="muted">telemetry: ${h(telemetryLine(u.telemetry))}</p>` : "";
  const transport = kindOf(t.kind)?.transport ? transportLine(u) : "";
  return [
    `<div class="unit" data-unit="${escapeAttr(u.unit)}">`,
    `<h3>${h(t.perNode || t.units.length > 1 ? `${t.name} [${u.unit}]` : t.name)} ${badge(u.verdict.outcome)}</h3>`,
    `<p>${h(u.verdict.reason)}</p>`,
    checks ? `<ul class="checks">${checks}</ul>` : "",
    componentTable(u, componentUnits(t)),
    `<p class="muted">hosts: ${h(u.hosts.join(", ") || "(none)")} · status: ${h(u.status)}${u.message ? ` (${h(u.message)})` : ""} · ${h(formatDuration(u.durationS))}</p>`,
    transport ? `<p class="muted transport">transport: ${h(transport)}</p>` : "",
    tel,
    logs ? `<p class="muted">logs: ${logs}</p>` : "",
    humanTail(u.tail).trim() ? `<details${u.verdict.outcome === "passed" ? "" : " open"}><summary>last lines of the log</summary><pre>${h(humanTail(u.tail))}</pre></details>` : "",
    "</div>",
  ].join("\n");
}

/** The unit of each of the kind's per-component metrics (a results.json of an unknown kind: none). */
function componentUnits(t: TestResult): Record<string, string> {
  return Object.fromEntries(Object.entries(kindOf(t.kind)?.componentMetrics ?? {}).map(([m, info]) => [m, info.unit]));
}

/** Links to the raw logs; eight ranks in one directory read as the directory once, then the file names. */
function logLinks(logs: string[]): string {
  const dir = sharedLogDir(logs);
  const links = logs.map((l) => `<a href="${escapeAttr(l)}">${h(dir ? l.slice(dir.length) : l)}</a>`).join(" · ");
  return dir ? `${h(dir)} ${links}` : links;
}

function inventory(nodes: NodeInventory[]): string {
  if (nodes.length === 0) return "";
  const rows = nodes.map((n) => {
    const models = [...new Set(n.gpus.map((g) => g.name))].join(", ") || "no GPU";
    const cells = [n.hostname, `${n.gpus.length} × ${models}`, n.driver, n.cuda, n.nccl, n.torch].map((v) => `<td>${h(v ?? "—")}</td>`);
    return `<tr>${cells.join("")}</tr>`;
  });
  return `<section id="inventory"><h2>Inventory</h2><table><tr><th>host</th><th>GPUs</th><th>driver</th><th>CUDA</th><th>NCCL</th><th>torch</th></tr>${rows.join("")}</table></section>`;
}
