// A line plot as static SVG: no plotting library, no CDN, opens offline. Each plot carries
// data-plot / data-series-count so tests (and curious users) can check what was drawn, and each
// series is a <g class="series"> whose geometry the page's script measures after layout.
import { escapeAttr, escapeText } from "./xml.ts";
import { formatBytes, formatNumber } from "./quantity.ts";
import { linearTicks, log2Ticks, type Tick } from "./plot-ticks.ts";

export interface PlotSeries {
  name: string;
  points: Array<[number, number | null]>;
}

export interface PlotSpec {
  id: string;
  title: string;
  /** what the plot shows, e.g. "busbw", "util_pct": data-plot */
  kind: string;
  xLabel: string;
  yLabel: string;
  xScale: "log2" | "linear";
  /** x is a size in bytes: axis labels like "8 GiB" */
  xBytes?: boolean;
  series: PlotSeries[];
  threshold?: { y: number; label: string };
  /** the natural top of the y axis (100 for a percentage), used when no value exceeds it */
  yTop?: number;
  /** a plot that is not a line (the nvlink matrix, lib/kinds/nvlink/matrix-svg.ts) draws its own SVG; `series` still holds its data */
  draw?: () => string;
}

const W = 560;
const H = 320;
const M = { left: 64, right: 16, top: 36, bottom: 48 };
const PALETTE = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf", "#7f7f7f", "#bcbd22"];
/** beyond this many points a series is thinned (min and max per bucket kept, so spikes survive) */
const MAX_POINTS = 600;

export function renderPlot(p: PlotSpec): string {
  if (p.draw) return p.draw();
  const series = p.series.map((s) => ({ name: s.name, points: thin(s.points.filter(([x]) => Number.isFinite(x) && (p.xScale !== "log2" || x > 0))) }));
  const xs = series.flatMap((s) => s.points.map(([x]) => x));
  const ys = series.flatMap((s) => s.points.flatMap(([, y]) => (y === null ? [] : [y])));
  if (p.threshold) ys.push(p.threshold.y);
  const xMin = xs.length ? Math.min(...xs) : 0;
  const xMax = xs.length ? Math.max(...xs) : 1;
  const yMax = ys.length ? Math.max(...ys) : 1;
  const yMin = Math.min(0, ...ys);
  const xt = p.xScale === "log2" ? log2Ticks(xMin, xMax, p.xBytes ? formatBytes : formatNumber) : linearTicks(xMin, xMax, formatNumber);
  const top = p.yTop !== undefined && yMax <= p.yTop ? p.yTop : yMax * 1.05;
  const yt = linearTicks(yMin, top, formatNumber);
  const fx = scaler(p.xScale === "log2" ? Math.log2 : (v) => v, xt[0].value, xt[xt.length - 1].value, M.left, W - M.right);
  const fy = scaler((v) => v, yt[0].value, yt[yt.length - 1].value, H - M.bottom, M.top);

  const out: string[] = [];
  out.push(
    `<svg class="plot" id="${escapeAttr(p.id)}" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" role="img" aria-label="${escapeAttr(p.title)}" data-plot="${escapeAttr(p.kind)}" data-series-count="${series.length}" data-x-scale="${p.xScale}">`,
  );
  out.push(`<title>${escapeText(p.title)}</title>`);
  out.push(`<text class="plot-title" x="${M.left}" y="20">${escapeText(p.title)}</text>`);
  out.push(...axes(xt, yt, fx, fy, p));
  if (p.threshold) {
    const y = fy(p.threshold.y).toFixed(1);
    out.push(
      `<g class="threshold" data-threshold="${p.threshold.y}"><line x1="${M.left}" x2="${W - M.right}" y1="${y}" y2="${y}"/><text x="${W - M.right - 4}" y="${Number(y) - 4}" text-anchor="end">${escapeText(p.threshold.label)}</text></g>`,
    );
  }
  series.forEach((s, i) => out.push(renderSeries(s, PALETTE[i % PALETTE.length], fx, fy, p)));
  out.push(legend(series.map((s) => s.name)));
  out.push("</svg>");
  return out.join("\n");
}

function renderSeries(s: PlotSeries, colour: string, fx: (v: number) => number, fy: (v: number) => number, p: PlotSpec): string {
  // a null (a size that produced no number) breaks the line instead of bridging it
  let d = "";
  let pen = false;
  for (const [x, y] of s.points) {
    if (y === null) {
      pen = false;
      continue;
    }
    d += `${pen ? "L" : "M"}${fx(x).toFixed(1)},${fy(y).toFixed(1)}`;
    pen = true;
  }
  const markers =
    s.points.length <= 64
      ? s.points.flatMap(([x, y]) =>
          y === null
            ? []
            : [
                `<circle cx="${fx(x).toFixed(1)}" cy="${fy(y).toFixed(1)}" r="2.5"><title>${escapeText(`${s.name}: ${p.xBytes ? formatBytes(x) : formatNumber(x)} → ${formatNumber(y)} ${p.yLabel}`)}</title></circle>`,
              ],
        )
      : [];
  return `<g class="series" data-series="${escapeAttr(s.name)}" data-points="${s.points.length}" stroke="${colour}" fill="${colour}"><path d="${d}" fill="none"/>${markers.join("")}</g>`;
}

function axes(xt: Tick[], yt: Tick[], fx: (v: number) => number, fy: (v: number) => number, p: PlotSpec): string[] {
  const out = [`<g class="axes">`];
  for (const t of yt) {
    const y = fy(t.value).toFixed(1);
    out.push(
      `<line class="grid" x1="${M.left}" x2="${W - M.right}" y1="${y}" y2="${y}"/><text x="${M.left - 6}" y="${Number(y) + 4}" text-anchor="end">${escapeText(t.label)}</text>`,
    );
  }
  xt.forEach((t, i) => {
    const x = fx(t.value).toFixed(1);
    // the last tick sits M.right (16 px) from the edge: a centred "16 MiB" was cut to "16 MiE"
    const anchor = i === xt.length - 1 && xt.length > 1 ? "end" : "middle";
    out.push(
      `<line class="tick" x1="${x}" x2="${x}" y1="${H - M.bottom}" y2="${H - M.bottom + 5}"/><text x="${x}" y="${H - M.bottom + 18}" text-anchor="${anchor}">${escapeText(t.label)}</text>`,
    );
  });
  out.push(`<line class="axis" x1="${M.left}" x2="${W - M.right}" y1="${H - M.bottom}" y2="${H - M.bottom}"/>`);
  out.push(`<text class="axis-label" x="${(M.left + W - M.right) / 2}" y="${H - 8}" text-anchor="middle">${escapeText(p.xLabel)}</text>`);
  out.push(`<text class="axis-label" transform="translate(14 ${(M.top + H - M.bottom) / 2}) rotate(-90)" text-anchor="middle">${escapeText(p.yLabel)}</text>`);
  out.push("</g>");
  return out;
}

function legend(names: string[]): string {
  if (names.length < 2) return "";
  const items = names.map((n, i) => {
    const x = M.left + 8 + (i % 5) * 96;
    const y = M.top + 6 + Math.floor(i / 5) * 14;
    return `<g class="legend-item" data-series="${escapeAttr(n)}"><rect x="${x}" y="${y - 8}" width="10" height="10" fill="${PALETTE[i % PALETTE.length]}"/><text x="${x + 14}" y="${y + 1}">${escapeText(n.length > 12 ? `${n.slice(0, 11)}…` : n)}</text></g>`;
  });
  return `<g class="legend">${items.join("")}</g>`;
}

/** Data value → pixel: [d0, d1] onto [r0, r1] after the axis transform `f` (identity or log2). */
function scaler(f: (v: number) => number, d0: number, d1: number, r0: number, r1: number): (v: number) => number {
  const a = f(d0);
  const span = f(d1) - a || 1;
  return (v: number) => r0 + ((f(v) - a) / span) * (r1 - r0);
}

function thin(points: Array<[number, number | null]>): Array<[number, number | null]> {
  if (points.length <= MAX_POINTS) return points;
  const bucket = Math.ceil(points.length / (MAX_POINTS / 2));
  const out: Array<[number, number | null]> = [];
  for (let i = 0; i < points.length; i += bucket) {
    const slice = points.slice(i, i + bucket).filter((p) => p[1] !== null) as Array<[number, number]>;
    if (slice.length === 0) continue;
    const lo = slice.reduce((a, b) => (b[1] < a[1] ? b : a));
    const hi = slice.reduce((a, b) => (b[1] > a[1] ? b : a));
    out.push(...(lo[0] <= hi[0] ? [lo, hi] : [hi, lo]));
  }
  return out;
}
