// The nvlink matrix as static SVG: one row per sending GPU, one column per receiving GPU, each cell
// its GB/s, shaded by its share of the matrix's best so a slow link stands out as a pale cell. The
// line plots of lib/core/plot-svg.ts cannot show a matrix; this is handed to them as PlotSpec.draw.
import { escapeAttr, escapeText } from "../../core/xml.ts";

export interface Matrix {
  id: string;
  title: string;
  /** data-plot, as the line plots carry it */
  kind: string;
  /** each rank's short name, rows and columns in the same order ("GPU 0", "rank 1") */
  labels: string[];
  /** cells[src][dst]: GB/s, null where unmeasured or on the diagonal */
  cells: Array<Array<number | null>>;
}

const M = { left: 72, top: 56, right: 16, bottom: 16 };
const MAX_W = 560;

export function renderMatrix(x: Matrix): string {
  const n = x.labels.length;
  const cw = Math.max(28, Math.min(64, Math.floor((MAX_W - M.left - M.right) / Math.max(1, n))));
  const ch = 26;
  const w = M.left + n * cw + M.right;
  const h = M.top + n * ch + M.bottom;
  const values = x.cells.flat().filter((v): v is number => v !== null);
  const best = values.length ? Math.max(...values) : 1;
  const out = [
    `<svg class="plot matrix" id="${escapeAttr(x.id)}" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${w} ${h}" width="${w}" height="${h}" role="img" aria-label="${escapeAttr(x.title)}" data-plot="${escapeAttr(x.kind)}" data-series-count="${n}">`,
    `<title>${escapeText(x.title)}</title>`,
    `<text class="plot-title" x="8" y="18">${escapeText(x.title)}</text>`,
    `<text class="axis-label" x="${M.left}" y="36">to (receiver) →; from (sender) ↓; GB/s</text>`,
  ];
  x.labels.forEach((label, i) => {
    out.push(`<text x="${M.left + i * cw + cw / 2}" y="${M.top - 6}" text-anchor="middle">${escapeText(short(label, cw))}</text>`);
    out.push(`<text x="${M.left - 6}" y="${M.top + i * ch + ch / 2 + 4}" text-anchor="end">${escapeText(short(label, M.left))}</text>`);
  });
  x.cells.forEach((row, i) => {
    row.forEach((v, j) => {
      const cx = M.left + j * cw;
      const cy = M.top + i * ch;
      const name = `${x.labels[i]} → ${x.labels[j]}`;
      if (i === j) {
        out.push(`<rect x="${cx}" y="${cy}" width="${cw}" height="${ch}" fill="#eee" stroke="#fff"/>`);
        return;
      }
      const share = v === null ? 0 : v / best;
      // lightness 92 % (no traffic) to 35 % (the best link): a link at half the best is clearly paler
      const fill = v === null ? "#fff" : `hsl(210, 70%, ${(92 - 57 * share).toFixed(0)}%)`;
      const ink = share > 0.6 ? "#fff" : "#000";
      const text = v === null ? "n/a" : v >= 100 ? v.toFixed(0) : v.toPrecision(3);
      out.push(
        `<g class="cell" data-src="${i}" data-dst="${j}" data-gbps="${v ?? ""}"><title>${escapeText(`${name}: ${v === null ? "not measured" : `${v.toFixed(1)} GB/s`}`)}</title>` +
          `<rect x="${cx}" y="${cy}" width="${cw}" height="${ch}" fill="${fill}" stroke="#fff"/>` +
          `<text x="${cx + cw / 2}" y="${cy + ch / 2 + 4}" text-anchor="middle" fill="${ink}">${text}</text></g>`,
      );
    });
  });
  out.push("</svg>");
  return out.join("\n");
}

/** A label cut to what fits in `px` at about 7 px a character. */
function short(label: string, px: number): string {
  const fit = Math.max(3, Math.floor(px / 7));
  return label.length > fit ? `${label.slice(0, fit - 1)}…` : label;
}
