// The short human view of an NcclReport for `gpucheck parse nccl` on a terminal: one line per row
// with both placements' busbw and #wrong, then the footer and how the run ended.
import type { NcclPlacement, NcclReport } from "../parsers/nccl.ts";

export function renderNcclTable(r: NcclReport): string {
  const head = `${r.collective ?? "collective not named"}, ${r.ranks === null ? "ranks not listed" : `${r.ranks} ranks`}, ${r.rows.length} rows`;
  const table: string[][] = [["size", "type", "redop", "root", "oop us", "oop busbw", "oop #wrong", "ip us", "ip busbw", "ip #wrong"]];
  for (const row of r.rows) {
    table.push([bytes(row.size), row.type, row.redop ?? "-", row.root === null ? "-" : String(row.root), ...cells(row.outOfPlace), ...cells(row.inPlace)]);
  }
  const widths = table[0]!.map((_, i) => Math.max(...table.map((cols) => cols[i]!.length)));
  const lines = table.map((cols) =>
    cols
      .map((c, i) => (i < 4 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!)))
      .join("  ")
      .trimEnd(),
  );
  const status = r.failure ? `failed: ${r.failure}` : r.complete ? "complete" : "incomplete: the footer never came (hung or killed?)";
  const foot = `max busbw ${fmt(r.maxBusbwGBs)} GB/s, avg busbw ${fmt(r.avgBusbwGBs)} GB/s, out of bounds ${fmt(r.outOfBounds)}, ${wrongTotal(r)}; ${status}`;
  return `${[head, ...lines, foot].join("\n")}\n`;
}

/** #wrong over every row and both placements: the one number that says the data was right */
function wrongTotal(r: NcclReport): string {
  const counts = r.rows
    .flatMap((row) => [row.outOfPlace, row.inPlace])
    .filter((p): p is NcclPlacement => p !== null)
    .map((p) => p.wrong);
  const checked = counts.filter((w): w is number => w !== null);
  if (checked.length === 0) return "wrong values not checked (N/A)";
  const total = checked.reduce((a, b) => a + b, 0);
  return `${total} wrong value${total === 1 ? "" : "s"} in total${checked.length < counts.length ? ` (${counts.length - checked.length} placements not checked)` : ""}`;
}

function cells(p: NcclPlacement | null): string[] {
  if (!p) return ["-", "-", "-"];
  return [fmt(p.timeUs), fmt(p.busbwGBs), p.wrong === null ? "N/A" : String(p.wrong)];
}

function fmt(v: number | null): string {
  return v === null ? "-" : String(v);
}

/** 8 B, 1 KiB, 8 GiB: the sizes of a factor-2 sweep read best in binary units */
function bytes(n: number): string {
  const units = ["B", "KiB", "MiB", "GiB", "TiB"];
  let i = 0;
  while (n >= 1024 && n % 1024 === 0 && i < units.length - 1) {
    n /= 1024;
    i++;
  }
  return `${n} ${units[i]}`;
}
