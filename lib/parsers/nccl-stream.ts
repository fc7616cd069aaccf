// The state of one process's output (one launcher label) while its lines arrive: the report it is
// printing now, and the row it is half-way through. Pure data plus the rules for each kind of line.
import { inferLayout, type Layout } from "./nccl-layout.ts";
import type { Meta } from "./nccl-line.ts";
import { buildRow, matchPieces, rowShape, type RowShape } from "./nccl-row.ts";
import type { NcclRow } from "./nccl-report.ts";

export interface ReportState {
  collective: string | null;
  rankLines: number;
  layout: Layout | null;
  shape: RowShape | null;
  /** kept for the first report of each stream only: later ones are only checked for completion */
  rows: NcclRow[] | null;
  pending: string[] | null;
  outOfBounds: number | null;
  avg: number | null;
  /** nccl-tests marked the footer FAILED (out-of-bounds values, or NCCL_TESTS_MIN_BW missed) */
  footerFailed: boolean;
  footer: boolean;
  /** rows (or a table header) were seen: a later preamble or header starts another report */
  tabled: boolean;
}

export function newReport(keepRows: boolean): ReportState {
  return {
    collective: null,
    rankLines: 0,
    layout: null,
    shape: null,
    rows: keepRows ? [] : null,
    pending: null,
    outOfBounds: null,
    avg: null,
    footerFailed: false,
    footer: false,
    tabled: false,
  };
}

export interface StreamState {
  reports: ReportState[];
}

function current(s: StreamState): ReportState {
  let r = s.reports[s.reports.length - 1];
  if (!r) s.reports.push((r = newReport(true)));
  return r;
}

/** A process starts printing another report (one per process without MPI, or a second run in the same log). */
function nextReport(s: StreamState): ReportState {
  const r = newReport(false);
  s.reports.push(r);
  return r;
}

export function applyMeta(s: StreamState, meta: Meta): void {
  let r = current(s);
  if (meta.kind !== "comment") r.pending = null;
  switch (meta.kind) {
    case "preamble":
    case "rank":
    case "collective":
      if (r.tabled && !(meta.kind === "collective" && !meta.starting)) r = nextReport(s);
      if (meta.kind === "rank") r.rankLines++;
      if (meta.kind === "collective") r.collective ??= meta.name;
      return;
    case "header":
      if (r.tabled) r = nextReport(s);
      r.layout = meta.layout;
      r.shape = rowShape(meta.layout);
      r.tabled = true;
      return;
    case "outOfBounds":
      r.outOfBounds = meta.value;
      r.footerFailed ||= meta.failed;
      return;
    case "avg":
      r.avg = meta.value;
      r.footerFailed ||= meta.failed;
      r.footer = true;
      return;
  }
}

/**
 * Offers a line that may carry (part of) a result row. Returns false when it does not, so the
 * caller treats it as noise.
 */
export function applyRowText(s: StreamState, text: string): boolean {
  const c = text.charCodeAt(0);
  const indented = c === 32 || c === 9;
  const tokens = text.trim().split(/\s+/);
  const last = s.reports[s.reports.length - 1];
  if (last?.pending && indented && last.shape) {
    const more = matchPieces(tokens, last.pending.length, last.shape);
    if (more.length > 0) {
      last.pending.push(...more);
      finishIfWhole(last);
      return true;
    }
  }
  if (!/^\d+$/.test(tokens[0]!) || !/^\d+$/.test(tokens[1] ?? "") || !/^[a-z]/.test(tokens[2] ?? "")) return false;
  const layout = last?.layout ?? inferLayout(tokens);
  const shape = last?.shape ?? rowShape(layout);
  const taken = matchPieces(tokens, 0, shape);
  if (taken.length < layout.keys.length) return false;
  let r = current(s);
  if (r.footer) r = nextReport(s);
  r.layout ??= layout;
  r.shape ??= shape;
  r.pending = taken;
  r.tabled = true;
  finishIfWhole(r);
  return true;
}

function finishIfWhole(r: ReportState): void {
  if (r.pending!.length < r.shape!.kinds.length) return;
  r.rows?.push(buildRow(r.pending!, r.layout!, r.rankLines || null));
  r.pending = null;
}
