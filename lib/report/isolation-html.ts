// report.html's view of an isolating test: the pair matrix as a heatmap (nodes × nodes, each cell a
// pair's headline against the best pair, failed and hung pairs marked), a strip of every node's
// verdict, and a table of the nodes that are not plainly good with their evidence.
import type { IsolationVerdict, JudgedGroup, NodeVerdict } from "../core/isolation.ts";
import { escapeAttr, escapeText as h } from "../core/xml.ts";

const CELL = 22;
const LABEL = 90;
/** cells per verdict: fills a colour-blind reader can still tell apart by the mark inside */
const MARK: Record<string, { fill: string; mark: string }> = {
  failed: { fill: "#d62728", mark: "✕" },
  timeout: { fill: "#7b3294", mark: "T" },
  error: { fill: "#bbbbbb", mark: "?" },
};
const NODE_FILL: Record<NodeVerdict["verdict"], string> = { good: "#2ca02c", bad: "#d62728", "suspect-unconfirmed": "#ff7f0e", untested: "#bbbbbb" };

export function isolationSection(v: IsolationVerdict, unit: string): string {
  const pairs = v.groups.filter((g) => g.group.nodes.length === 2);
  return [
    `<div class="isolation"><h3>Isolation: ${h(v.pattern)}, ${v.rounds} round(s), ${v.launches} launch(es)${v.complete ? "" : " (stopped before it finished)"}</h3>`,
    `<p class="muted">${h(v.rule)}</p>`,
    nodeStrip(v.nodes),
    pairs.length
      ? heatmap(
          v.nodes.map((n) => n.node),
          pairs,
          unit,
        )
      : "",
    nodeTable(v),
    "</div>",
  ].join("\n");
}

/** One square per node in run order, coloured by its verdict, the reason on hover. */
function nodeStrip(nodes: NodeVerdict[]): string {
  const w = Math.max(nodes.length * (CELL + 2), 10);
  const cells = nodes.map(
    (n, i) =>
      `<rect x="${i * (CELL + 2)}" y="0" width="${CELL}" height="${CELL}" fill="${NODE_FILL[n.verdict]}"><title>${h(`${n.node}: ${n.verdict}: ${n.reason}`)}</title></rect>`,
  );
  const svg = `<svg class="node-strip" role="img" aria-label="node verdicts" width="${w}" height="${CELL}" viewBox="0 0 ${w} ${CELL}">${cells.join("")}</svg>`;
  return `<p>${svg}<br><span class="muted">Every node in run order (${h(nodes[0]?.node ?? "")} … ${h(nodes.at(-1)?.node ?? "")}): green good, red bad, orange suspected but not confirmed, grey not judged.</span></p>`;
}

/**
 * Nodes × nodes: a pair that passed in the shade of its ratio to the best pair (darker is slower), a
 * failed, hung or unjudged pair in its colour with a mark. A pair run twice (the second pass) shows
 * its latest result; both are in the table of groups.
 */
function heatmap(nodes: string[], pairs: JudgedGroup[], unit: string): string {
  const at = new Map(nodes.map((n, i) => [n, i]));
  const size = LABEL + nodes.length * CELL;
  const out: string[] = [];
  nodes.forEach((n, i) => {
    const y = LABEL + i * CELL + CELL * 0.7;
    out.push(`<text x="${LABEL - 4}" y="${y}" text-anchor="end" font-size="11">${h(n)}</text>`);
    out.push(`<text transform="translate(${LABEL + i * CELL + CELL * 0.7},${LABEL - 4}) rotate(-60)" font-size="11">${h(n)}</text>`);
  });
  for (const g of pairs) {
    const [a, b] = g.group.nodes as [string, string];
    const ia = at.get(a);
    const ib = at.get(b);
    if (ia === undefined || ib === undefined) continue;
    const title = `${g.group.name} (round ${g.round}, ${g.phase}): ${g.status}${g.value !== null ? `, ${g.value} ${unit}` : ""}${g.ratio !== null ? `, ${g.ratio.toFixed(3)} of ${g.reference}` : ""}; ${g.why}`;
    for (const [r, c] of [
      [ia, ib],
      [ib, ia],
    ] as const) {
      const x = LABEL + c * CELL;
      const y = LABEL + r * CELL;
      const marked = MARK[g.status];
      const fill = marked ? marked.fill : shade(g.ratio);
      out.push(
        `<g><rect x="${x}" y="${y}" width="${CELL - 1}" height="${CELL - 1}" fill="${fill}"${g.judged === "bad" ? ' stroke="#000" stroke-width="2"' : ""}><title>${h(title)}</title></rect>${
          marked ? `<text x="${x + CELL / 2}" y="${y + CELL * 0.7}" text-anchor="middle" font-size="12" fill="#fff">${marked.mark}</text>` : ""
        }</g>`,
      );
    }
  }
  return `<svg class="pair-matrix" role="img" aria-label="${escapeAttr(`pair matrix of ${nodes.length} nodes`)}" width="${size}" height="${size}" viewBox="0 0 ${size} ${size}">${out.join("")}</svg>
<p class="muted">Each cell a pair: green at the best pair's ${h(unit || "value")}, paler to white as it falls to 0.5 of it; ✕ failed, T hung (cut by the timeout), ? not judged; a black border marks a pair judged bad.</p>`;
}

/** ratio 1 → full green, 0.5 or below → white */
function shade(ratio: number | null): string {
  if (ratio === null) return "#dddddd";
  const t = Math.max(0, Math.min(1, (ratio - 0.5) / 0.5));
  const mix = (from: number, to: number) => Math.round(from + (to - from) * t);
  return `rgb(${mix(255, 44)},${mix(255, 160)},${mix(255, 44)})`;
}

function nodeTable(v: IsolationVerdict): string {
  const shown = v.nodes.filter((n) => n.verdict !== "good");
  const rows = shown.map(
    (n) =>
      `<tr data-outcome="${n.verdict === "bad" ? "failed" : n.verdict === "untested" ? "error" : "passed"}"><td>${h(n.node)}</td><td>${h(n.verdict)}</td><td>${h(n.reason)}</td><td>${h(
        n.evidence.map((e) => `${e.phase} ${e.group}: ${e.status}${e.ratio !== null ? ` (${e.ratio.toFixed(3)})` : ""}`).join("; "),
      )}</td></tr>`,
  );
  const extra = [...v.badPairs.map((p) => `bad pair ${p}: fails only together, each node passes with others`), ...v.unresolved.map((u) => `unexplained: ${u}`)];
  const table = rows.length
    ? `<table class="verdicts"><tr><th>node</th><th>verdict</th><th>why</th><th>evidence</th></tr>${rows.join("")}</table>`
    : `<p>Every node of the ${v.nodes.length} was judged good.</p>`;
  return table + (extra.length ? `<ul>${extra.map((x) => `<li>${h(x)}</li>`).join("")}</ul>` : "");
}
