// report.html of a fleet (lib/report/fleet.ts): verdicts by exception. The failing, errored,
// unmeasured and outlying nodes come first with their values; the rest are counts and hostlist
// ranges. Then a node × test grid, each test's distribution over the nodes with its outliers named,
// and a search by node name (the page's one inline script reads the data embedded here).
import type { Outcome, ResultsFile, TestResult, UnitResult } from "../core/types.ts";
import { lookupMetric } from "../assess/judge.ts";
import { compressHostlist } from "../core/hostlist.ts";
import { withUnit } from "../core/quantity.ts";
import { escapeAttr, escapeText as h } from "../core/xml.ts";
import { thresholdText } from "./headline.ts";

/** A node's cell in a test: its unit's outcome, or "unmeasured" when no unit of the test covered it. */
export type Cell = Outcome | "unmeasured";

export interface FleetView {
  nodes: string[];
  tests: TestResult[];
  /** [test][node] */
  cells: Cell[][];
  /** [test][node]: the headline value of the node's own unit (per-node tests), else null */
  values: Array<Array<number | null>>;
  /** per-node tests: the nodes outside the test's far-out fences (passing ones too) */
  outliers: Array<Set<number>>;
  /** [test]: the median of the nodes' headline values, null when none was measured */
  medians: Array<number | null>;
}

const badge = (o: Cell) => `<span class="badge ${o}">${o.toUpperCase()}</span>`;
const byName = (a: string, b: string) => a.localeCompare(b, "en", { numeric: true });

/** Every node the run knows of: inventory, preflight and every unit's hosts. */
export function fleetView(r: ResultsFile): FleetView {
  const all = new Set<string>([
    ...r.inventory.map((n) => n.hostname),
    ...(r.preflight?.nodes.map((n) => n.node) ?? []),
    ...r.tests.flatMap((t) => t.units.flatMap((u) => u.hosts)),
  ]);
  const nodes = [...all].sort(byName);
  const index = new Map(nodes.map((n, i) => [n, i]));
  const cells: Cell[][] = [];
  const values: Array<Array<number | null>> = [];
  for (const t of r.tests) {
    const row: Cell[] = nodes.map(() => "unmeasured");
    const vals: Array<number | null> = nodes.map(() => null);
    for (const u of t.units) {
      for (const host of u.hosts) {
        const i = index.get(host) as number;
        // a node in two units (groups of an isolating pattern): the worse outcome stands
        row[i] = worse(row[i], u.verdict.outcome);
        if (ownUnit(t, u)) vals[i] = headlineValue(t, u);
      }
    }
    cells.push(row);
    values.push(vals);
  }
  const medians = values.map((v) => {
    const xs = v.flatMap((x) => (x === null ? [] : [x]));
    return xs.length ? median(xs) : null;
  });
  return { nodes, tests: r.tests, cells, values, medians, outliers: values.map((v, k) => (r.tests[k].perNode ? farOut(v, badSide(r.tests[k])) : new Set())) };
}

/** A per-node unit: its values are the node's own (a whole-cluster unit's are everyone's). */
const ownUnit = (t: TestResult, u: UnitResult) => t.perNode && u.hosts.length === 1;

const RANK: Record<Cell, number> = { passed: 0, skipped: 1, unmeasured: 2, failed: 3, error: 4, unfinished: 5 };
function worse(a: Cell, b: Outcome): Cell {
  return a === "unmeasured" || RANK[b] > RANK[a] ? b : a;
}

export function headlineValue(t: TestResult, u: UnitResult): number | null {
  if (!u.measurement) return null;
  const e = t.expect.find((x) => x.metric === t.headline.metric);
  return lookupMetric(u.measurement, t.headline.metric, e?.at).value;
}

/** The side an outlier is bad on: below for a minimum (higher is better), above for a maximum, both without a threshold. */
function badSide(t: TestResult): "below" | "above" | "both" {
  const e = headlineExpectation(t);
  if (e?.min !== undefined && e.max === undefined) return "below";
  if (e?.max !== undefined && e.min === undefined) return "above";
  return "both";
}

/** The threshold on the headline, or on the per-part metric it is the minimum or maximum of (gemm_bf16_tflops_min). */
function headlineExpectation(t: TestResult) {
  const m = t.headline.metric;
  return t.expect.find((x) => x.metric === m) ?? t.expect.find((x) => m === `${x.metric}_min` || m === `${x.metric}_max`);
}

/**
 * The nodes beyond Tukey's far-out fences (3 × IQR beyond the quartiles) on the bad side, and at
 * least 3% from the median: at 1,000 nodes the inner fences (1.5 × IQR) name a handful of healthy
 * nodes in every test, and a narrow distribution's fences fall within the metric's rounding.
 */
function farOut(values: Array<number | null>, side: "below" | "above" | "both"): Set<number> {
  const xs = values.flatMap((v) => (v === null ? [] : [v])).sort((a, b) => a - b);
  const out = new Set<number>();
  if (xs.length < 8) return out;
  const q = (p: number) => xs[Math.min(xs.length - 1, Math.floor(p * (xs.length - 1)))];
  const [q1, q3] = [q(0.25), q(0.75)];
  const iqr = q3 - q1;
  if (iqr === 0) return out;
  const mid = q(0.5);
  values.forEach((v, i) => {
    if (v === null || Math.abs(v - mid) < 0.03 * Math.abs(mid)) return;
    if ((side !== "above" && v < q1 - 3 * iqr) || (side !== "below" && v > q3 + 3 * iqr)) out.add(i);
  });
  return out;
}

/** The section that replaces the verdict table of a small run. */
export function fleetSection(v: FleetView): string {
  return [
    '<section id="nodes">',
    "<h2>Nodes</h2>",
    `<p>${h(nodeCounts(v))}</p>`,
    '<p class="search"><label>find a node <input id="node-search" type="search" placeholder="gpu0042" autocomplete="off"></label> <span id="node-found" class="muted"></span></p>',
    '<div id="node-results"></div>',
    exceptions(v),
    "</section>",
    '<section id="tests-summary">',
    "<h2>Tests</h2>",
    testTable(v),
    "</section>",
    '<section id="grid">',
    "<h2>Node × test</h2>",
    heatGrid(v),
    "</section>",
    distributions(v),
    `<script type="application/json" id="fleet-data">${fleetData(v)}</script>`,
  ].join("\n");
}

/** "1,000 nodes: 3 failed, 1 unmeasured in some test, 996 passed every test" */
function nodeCounts(v: FleetView): string {
  const per = v.nodes.map((_, i) => nodeOutcome(v, i));
  const n = (c: Cell) => per.filter((x) => x === c).length;
  const parts = [
    n("failed") && `${n("failed")} failed`,
    n("error") && `${n("error")} with an error`,
    n("unmeasured") && `${n("unmeasured")} not measured by every test`,
    n("skipped") && `${n("skipped")} skipped`,
    `${n("passed")} passed every test that measured them on their own`,
  ].filter(Boolean);
  return `${v.nodes.length.toLocaleString("en")} nodes: ${parts.join(", ")}.`;
}

/** A node's worst cell over the per-node tests (a whole-cluster failure is the test's, not the node's). */
function nodeOutcome(v: FleetView, i: number): Cell {
  let worst: Cell = "passed";
  v.tests.forEach((t, k) => {
    if (!t.perNode && v.cells[k][i] !== "unmeasured") return;
    const c = v.cells[k][i];
    if (RANK[c] > RANK[worst]) worst = c;
  });
  return worst;
}

/** Every node that did not pass a test, or lies far out of its distribution, with its values; failing first. */
function exceptions(v: FleetView): string {
  const rows: Array<{ rank: number; node: string; html: string }> = [];
  // a node no test measured is one row, not one per test
  const unmeasured = new Map<number, number[]>();
  v.tests.forEach((t, k) => {
    const unitOf = new Map(t.units.filter((u) => ownUnit(t, u)).map((u) => [u.hosts[0], u]));
    const threshold = thresholdOf(t);
    v.nodes.forEach((node, i) => {
      const c = v.cells[k][i];
      const outlier = v.outliers[k].has(i);
      // a whole-cluster test's failure is listed under Tests: it cannot name a node
      if ((c === "passed" && !outlier) || (!t.perNode && c !== "unmeasured")) return;
      if (c === "unmeasured") {
        unmeasured.set(i, [...(unmeasured.get(i) ?? []), k]);
        return;
      }
      const u = unitOf.get(node);
      const value = v.values[k][i];
      const med = v.medians[k];
      const why =
        c === "passed" && value !== null && med !== null
          ? `passed its threshold, but far from the other nodes: ${withUnit(value, t.headline.unit)} against their median ${withUnit(med, t.headline.unit)}`
          : (u?.verdict.reason ?? "");
      const note = outlier && c === "passed" ? `<span class="badge outlier">OUTLIER</span> ` : "";
      rows.push({
        rank: -RANK[c] * 2 - (outlier ? 1 : 0),
        node,
        html: `<tr data-outcome="${c}" data-node="${escapeAttr(node)}"><td class="mono">${h(node)}</td><td><a href="#test-${k}">${h(t.name)}</a></td><td>${note}${badge(c)}</td><td class="num">${value === null ? "—" : h(withUnit(value, t.headline.unit))}</td><td class="num">${h(threshold)}</td><td>${h(clip(why, 600))}</td></tr>`,
      });
    });
  });
  for (const [i, ks] of unmeasured) {
    const names = ks.map((k) => `<a href="#test-${k}">${h(v.tests[k].name)}</a>`).join(", ");
    const of = ks.length === v.tests.length ? "any test" : `${ks.length} of ${v.tests.length} tests`;
    rows.push({
      rank: -RANK.unmeasured * 2,
      node: v.nodes[i],
      html: `<tr data-outcome="unmeasured" data-node="${escapeAttr(v.nodes[i])}"><td class="mono">${h(v.nodes[i])}</td><td>${ks.length === v.tests.length ? "every test" : `${ks.length} of ${v.tests.length} tests`}</td><td>${badge("unmeasured")}</td><td class="num">—</td><td class="num"></td><td>no result from ${of}, so not accepted: ${names}</td></tr>`,
    });
  }
  if (rows.length === 0) return "<p>Every node passed every test, none far out of its distribution.</p>";
  rows.sort((a, b) => a.rank - b.rank || byName(a.node, b.node));
  const shown = rows.slice(0, 500);
  const more = rows.length > shown.length ? `<p class="muted">… and ${rows.length - shown.length} more rows: the grid and the search below show every node.</p>` : "";
  return `<h3>Failing, unmeasured and outlying nodes</h3><table class="verdicts exceptions"><tr><th>node</th><th>test</th><th>verdict</th><th>headline</th><th>threshold</th><th>why</th></tr>${shown.map((r) => r.html).join("")}</table>${more}`;
}

function thresholdOf(t: TestResult): string {
  const e = headlineExpectation(t);
  return e ? thresholdText(e) : "";
}

/** Per test: the counts, with the nodes of each outcome as hostlist ranges. */
function testTable(v: FleetView): string {
  const rows = v.tests.map((t, k) => {
    const groups = (["failed", "error", "unmeasured", "skipped", "passed"] as const)
      .map((c) => ({ c, nodes: v.nodes.filter((_, i) => v.cells[k][i] === c) }))
      .filter((g) => g.nodes.length > 0)
      .map((g) => `<div>${badge(g.c)} ${g.nodes.length} <span class="mono hostlist">${h(compressHostlist(g.nodes))}</span></div>`);
    const shape = t.perNode ? "each node on its own" : `${t.units.length} unit${t.units.length === 1 ? "" : "s"} over the nodes`;
    return `<tr data-outcome="${t.outcome}"><td><a href="#test-${k}">${h(t.name)}</a><div class="muted">${h(t.kind)} · ${h(shape)}</div></td><td>${badge(t.outcome)}</td><td>${groups.join("")}</td></tr>`;
  });
  return `<table class="verdicts"><tr><th>test</th><th>verdict</th><th>nodes</th></tr>${rows.join("")}</table>`;
}

const COLOUR: Record<Cell, string> = { passed: "#1a7f37", failed: "#cf222e", error: "#8250df", skipped: "#9a6700", unmeasured: "#ffffff", unfinished: "#8250df" };

/**
 * Tests down, nodes across in name order, one thin column per node: a run of passing nodes is one
 * rectangle, every other cell its own (at least 3 px wide, so one bad node out of 1,000 shows), with
 * its name on hover and below the grid. Unmeasured cells stay white and hatched.
 */
function heatGrid(v: FleetView): string {
  const left = 150;
  const width = 960;
  const rowH = 18;
  const colW = width / Math.max(1, v.nodes.length);
  const top = 4;
  const parts: string[] = [];
  const flagged = new Set<number>();
  v.tests.forEach((t, k) => {
    const y = top + k * rowH;
    parts.push(`<text x="${left - 6}" y="${y + rowH * 0.7}" text-anchor="end">${h(clip(t.name, 22))}</text>`);
    parts.push(`<rect x="${left}" y="${y}" width="${width}" height="${rowH - 3}" fill="url(#unmeasured)"><title>${h(t.name)}: not measured</title></rect>`);
    for (let i = 0; i < v.nodes.length; ) {
      const c = v.cells[k][i];
      let j = i;
      while (c === "passed" && j + 1 < v.nodes.length && v.cells[k][j + 1] === "passed") j++;
      if (c === "passed") {
        const label = `${t.name}: ${compressHostlist(v.nodes.slice(i, j + 1))} passed`;
        parts.push(
          `<rect x="${f(left + i * colW)}" y="${y}" width="${f((j - i + 1) * colW)}" height="${rowH - 3}" fill="${COLOUR.passed}"${t.perNode ? "" : ' fill-opacity="0.55"'}><title>${h(label)}</title></rect>`,
        );
      } else {
        if (t.perNode || c === "unmeasured") flagged.add(i);
        const w = Math.max(3, colW);
        const fill = c === "unmeasured" ? "url(#unmeasured)" : COLOUR[c];
        parts.push(
          `<rect x="${f(left + i * colW + colW / 2 - w / 2)}" y="${y}" width="${f(w)}" height="${rowH - 3}" fill="${fill}" stroke="${c === "unmeasured" ? "#57606a" : "none"}" stroke-width="0.8"><title>${h(`${v.nodes[i]} · ${t.name}: ${c}`)}</title></rect>`,
        );
      }
      i = j + 1;
    }
  });
  let y = top + v.tests.length * rowH + 4;
  // the flagged nodes' names under their columns, staggered on up to 4 lines so neighbours stay readable
  const names = [...flagged].sort((a, b) => a - b).slice(0, 40);
  names.forEach((i, n) => {
    const x = left + i * colW + colW / 2;
    const line = n % 4;
    // names near the right edge end at their column instead of running off the picture
    const end = x > left + width - 90;
    parts.push(
      `<line x1="${f(x)}" y1="${y - 3}" x2="${f(x)}" y2="${y + 4 + line * 12}" class="tick"/><text x="${f(end ? x - 2 : x + 2)}" y="${y + 13 + line * 12}" class="node-label"${end ? ' text-anchor="end"' : ""}>${h(v.nodes[i])}</text>`,
    );
  });
  y += names.length ? 4 * 12 + 14 : 4;
  const legend = (["passed", "failed", "error", "skipped", "unmeasured"] as const)
    .map(
      (c, n) =>
        `<rect x="${left + n * 120}" y="${y}" width="12" height="12" fill="${c === "unmeasured" ? "url(#unmeasured)" : COLOUR[c]}" stroke="#8c959f" stroke-width="0.5"/><text x="${left + n * 120 + 16}" y="${y + 10}">${c}</text>`,
    )
    .join("");
  const height = y + 18;
  const first = v.nodes[0] ?? "";
  const last = v.nodes[v.nodes.length - 1] ?? "";
  return [
    `<p class="muted">One column per node, ${h(first)} on the left to ${h(last)} on the right; whole-cluster tests are paler (their verdict is the cluster's, not the node's). Hover a cell for its node.</p>`,
    `<svg class="plot heat" viewBox="0 0 ${left + width + 10} ${height}" width="${left + width + 10}" height="${height}" role="img" aria-label="node by test verdicts">`,
    '<defs><pattern id="unmeasured" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><rect width="6" height="6" fill="#fff"/><line x1="0" y1="0" x2="0" y2="6" stroke="#8c959f" stroke-width="1.5"/></pattern></defs>',
    ...parts,
    legend,
    "</svg>",
  ].join("\n");
}

/** Each per-node test's headline over the nodes: a histogram with the threshold and the outlying and failing nodes named. */
function distributions(v: FleetView): string {
  const plots = v.tests.flatMap((t, k) => {
    if (!t.perNode) return [];
    const pts = v.values[k].flatMap((x, i) => (x === null ? [] : [{ x, i }]));
    if (pts.length < 2) return [];
    return [histogram(v, t, k, pts)];
  });
  return plots.length ? `<section id="distributions"><h2>Distributions over the nodes</h2><div class="plots">${plots.join("\n")}</div></section>` : "";
}

function histogram(v: FleetView, t: TestResult, k: number, pts: Array<{ x: number; i: number }>): string {
  const W = 560;
  const H = 226;
  const L = 46;
  const R = 14;
  const T = 44;
  const B = 166;
  const e = headlineExpectation(t);
  const bound = e?.min ?? e?.max;
  const xs = pts.map((p) => p.x);
  let lo = Math.min(...xs, ...(bound !== undefined ? [bound] : []));
  let hi = Math.max(...xs, ...(bound !== undefined ? [bound] : []));
  if (hi === lo) [lo, hi] = [lo - 1, hi + 1];
  const pad = (hi - lo) * 0.04;
  lo -= pad;
  hi += pad;
  const bins = 40;
  const counts = new Array<number>(bins).fill(0);
  for (const x of xs) counts[Math.min(bins - 1, Math.floor(((x - lo) / (hi - lo)) * bins))]++;
  const top = Math.max(...counts);
  const sx = (x: number) => L + ((x - lo) / (hi - lo)) * (W - L - R);
  const bw = (W - L - R) / bins;
  const bars = counts
    .map((c, b) =>
      c
        ? `<rect x="${f(L + b * bw + 0.5)}" y="${f(B - (c / top) * (B - T))}" width="${f(bw - 1)}" height="${f((c / top) * (B - T))}" fill="#0969da" fill-opacity="0.75"><title>${c} node${c === 1 ? "" : "s"}</title></rect>`
        : "",
    )
    .join("");
  // the outer ticks' labels grow inwards, so they stay inside the picture
  const ticks = [lo + pad, (lo + hi) / 2, hi - pad]
    .map(
      (x, n) =>
        `<line x1="${f(sx(x))}" y1="${B}" x2="${f(sx(x))}" y2="${B + 4}" class="tick"/><text x="${f(sx(x))}" y="${B + 15}" text-anchor="${["start", "middle", "end"][n]}">${h(withUnit(round3(x), t.headline.unit))}</text>`,
    )
    .join("");
  const limit =
    bound !== undefined
      ? `<g class="threshold"><line x1="${f(sx(bound))}" y1="${T - 4}" x2="${f(sx(bound))}" y2="${B}"/><text x="${f(sx(bound) + (sx(bound) > W - 120 ? -3 : 3))}" y="${T + 6}"${sx(bound) > W - 120 ? ' text-anchor="end"' : ""}>${h(thresholdOf(t))}</text></g>`
      : "";
  // the nodes to name: failing ones and far-out ones, worst first
  const named = pts.filter((p) => v.cells[k][p.i] !== "passed" || v.outliers[k].has(p.i)).slice(0, 12);
  const labels = named
    .slice(0, 6)
    .map(
      (p, n) =>
        `<g class="outlier-mark"><path d="M${f(sx(p.x))} ${B + 20} l-4 7 h8 z" fill="#cf222e"/><text x="${f(sx(p.x))}" y="${B + 38 + (n % 3) * 12}" text-anchor="middle" class="node-label">${h(v.nodes[p.i])}</text></g>`,
    )
    .join("");
  const list = named.length
    ? `<div class="muted small">named: ${named.map((p) => `<span class="mono">${h(v.nodes[p.i])}</span> ${h(withUnit(p.x, t.headline.unit))}${v.cells[k][p.i] !== "passed" ? ` (${v.cells[k][p.i]})` : " (outlier)"}`).join(", ")}</div>`
    : "";
  const title = `${t.name}: ${t.headline.metric}`;
  const sub = `${pts.length} nodes, median ${withUnit(median(xs), t.headline.unit)}`;
  const svg = `<svg class="plot dist" viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" role="img" aria-label="${escapeAttr(`${title}: ${sub}`)}" data-test="${escapeAttr(t.name)}"><text x="${L}" y="15" class="plot-title">${h(clip(title, 62))}</text><text x="${L}" y="30" class="muted-text">${h(sub)}</text><line x1="${L}" y1="${B}" x2="${W - R}" y2="${B}" class="axis"/><text x="${L - 6}" y="${T + 4}" text-anchor="end">${top}</text><text x="${L - 6}" y="${B}" text-anchor="end">0</text>${bars}${ticks}${limit}${labels}</svg>`;
  return `<figure class="dist">${svg}${list}</figure>`;
}

/** The data the search reads: per node its cell and value in each test. */
function fleetData(v: FleetView): string {
  const code: Record<Cell, string> = { passed: "p", failed: "f", error: "e", skipped: "s", unmeasured: "u", unfinished: "n" };
  const data = {
    nodes: v.nodes,
    tests: v.tests.map((t, k) => ({
      name: t.name,
      anchor: `test-${k}`,
      unit: t.headline.unit,
      metric: t.headline.metric,
      cells: v.cells[k].map((c) => code[c]).join(""),
      values: v.values[k],
    })),
  };
  // inside <script>, "</" would end it early: JSON allows "<\/" for the same string
  return JSON.stringify(data).replace(/<\//g, "<\\/");
}

const f = (x: number) => (Math.round(x * 10) / 10).toString();
const round3 = (x: number) => Number(x.toPrecision(4));
const clip = (s: string, n: number) => (s.length <= n ? s : `${s.slice(0, n - 1)}…`);
function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[s.length >> 1] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

/** The inventory of a fleet: nodes alike are one row with their names as ranges. */
export function fleetInventory(r: ResultsFile): string {
  if (r.inventory.length === 0) return "";
  const groups = new Map<string, string[]>();
  for (const n of r.inventory) {
    const models = [...new Set(n.gpus.map((g) => g.name))].join(", ") || "no GPU";
    const key = JSON.stringify([`${n.gpus.length} × ${models}`, n.driver, n.cuda, n.nccl, n.torch]);
    groups.set(key, [...(groups.get(key) ?? []), n.hostname]);
  }
  const rows = [...groups].map(([key, hosts]) => {
    const cells = (JSON.parse(key) as Array<string | null>).map((x) => `<td>${h(x ?? "—")}</td>`).join("");
    return `<tr><td>${hosts.length}</td><td class="mono hostlist">${h(compressHostlist(hosts))}</td>${cells}</tr>`;
  });
  return `<section id="inventory"><h2>Inventory</h2><p class="muted">Nodes alike are one row; every GPU's serial number is in results.json.</p><table><tr><th>nodes</th><th>hosts</th><th>GPUs</th><th>driver</th><th>CUDA</th><th>NCCL</th><th>torch</th></tr>${rows.join("")}</table></section>`;
}
