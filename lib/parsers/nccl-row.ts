// Reading result rows piece by piece. nccl-tests prints a row as: the keys (size count type redop
// root), then each placement's numbers when it has measured them, then the newline. Anything else
// that writes to the same stdout meanwhile (NCCL INFO/WARN lines, a failure) lands in the middle of
// the row: "   1048576  262144  float  sum  -1node1:77:90 [0] NCCL INFO ..." and the rest of the row
// continues on a later line. So a row is built from whole pieces, the last of which may carry glue.
import type { Col, KeyCol, Layout } from "./nccl-layout.ts";
import type { NcclPlacement, NcclRow } from "./nccl-report.ts";

type Kind = "uint" | "int" | "type" | "op" | "num" | "wrong" | "date" | "clock";

const FULL: Record<Kind, RegExp> = {
  uint: /^\d+$/,
  int: /^-?\d+$/,
  type: /^[a-z][a-z0-9_]*$/,
  op: /^[a-z][a-z0-9_]*$/,
  num: /^(?:[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?|-?nan|-?inf)$/,
  wrong: /^(?:[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?|-?nan|-?inf|N\/A)$/,
  date: /^\d{4}-\d\d-\d\d$/,
  clock: /^\d\d:\d\d:\d\d$/,
};
/** the start of a token that has foreign text glued to it; words are matched against known names */
const GLUED: Partial<Record<Kind, RegExp>> = {
  uint: /^\d+/,
  int: /^-?\d+/,
  num: /^[-+]?(?:\d+\.\d*|\d+)(?:[eE][-+]?\d+)?/,
  wrong: /^(?:N\/A|[-+]?(?:\d+\.\d*|\d+)(?:[eE][-+]?\d+)?)/,
  type: /^(?:bfloat16|f8e4m3|f8e5m2|uint8|uint32|uint64|int8|int32|int64|half|float|double|char|int)/,
  op: /^(?:mulsum|prod|none|sum|max|min|avg)/,
};

const KEY_KIND: Record<KeyCol, Kind> = { size: "uint", count: "uint", type: "type", redop: "op", root: "int" };
const COL_KIND: Record<Col, Kind> = { time: "num", algbw: "num", busbw: "num", stat: "num", wrong: "wrong", delta: "wrong", either: "wrong" };

/** The token kinds of a whole row, and where each piece ends. */
export interface RowShape {
  kinds: Kind[];
  pieceEnds: Set<number>;
}

export function rowShape(layout: Layout): RowShape {
  const kinds: Kind[] = layout.keys.map((k) => KEY_KIND[k]);
  const pieceEnds = new Set([kinds.length]);
  for (let p = 0; p < layout.placements; p++) {
    kinds.push(...layout.cols.map((c) => COL_KIND[c]));
    pieceEnds.add(kinds.length);
  }
  if (layout.timestamp) kinds.push("date", "clock");
  pieceEnds.add(kinds.length);
  return { kinds, pieceEnds };
}

/**
 * The tokens that extend a row from position `from` by whole pieces; the last may lose glued text.
 * Returns [] when not even one piece matches.
 */
export function matchPieces(tokens: string[], from: number, shape: RowShape): string[] {
  const taken: string[] = [];
  let accepted = 0;
  for (let i = 0; i < tokens.length && from + i < shape.kinds.length; i++) {
    const kind = shape.kinds[from + i]!;
    const tok = tokens[i]!;
    if (FULL[kind].test(tok)) {
      taken.push(tok);
    } else {
      const head = GLUED[kind]?.exec(tok)?.[0];
      if (head && shape.pieceEnds.has(from + i + 1)) {
        taken.push(head);
        accepted = taken.length;
      }
      break;
    }
    if (shape.pieceEnds.has(from + i + 1)) accepted = taken.length;
  }
  return taken.slice(0, accepted);
}

/** The row a complete token list stands for; old layouts' max |delta| is judged with nccl-tests' own tolerance. */
export function buildRow(tokens: string[], layout: Layout, ranks: number | null): NcclRow {
  const key = (k: KeyCol) => {
    const i = layout.keys.indexOf(k);
    return i < 0 ? null : tokens[i]!;
  };
  const type = key("type")!;
  const redop = key("redop");
  const root = key("root");
  const placement = (p: number): NcclPlacement | null => {
    if (p >= layout.placements) return null;
    const at = layout.keys.length + p * layout.cols.length;
    const col = (c: Col) => {
      const i = layout.cols.indexOf(c);
      return i < 0 ? undefined : tokens[at + i]!;
    };
    const time = num(col("time")!);
    return {
      timeUs: time === null ? null : round(time * layout.timeScale),
      algbwGBs: num(col("algbw")!),
      busbwGBs: num(col("busbw")!),
      wrong: wrongOf(layout.cols, tokens.slice(at, at + layout.cols.length), type, ranks),
    };
  };
  return { size: Number(key("size")), count: Number(key("count")), type, redop, root: root === null ? null : Number(root), outOfPlace: placement(0), inPlace: placement(1) };
}

function num(tok: string): number | null {
  const v = Number(tok);
  return Number.isFinite(v) ? v : null;
}

/** ms × 1000 must not turn 0.118 into 117.99999999999999 */
function round(v: number): number {
  return Number(v.toPrecision(12));
}

function wrongOf(cols: Col[], values: string[], type: string, ranks: number | null): number | null {
  const i = cols.findIndex((c) => c === "wrong" || c === "delta" || c === "either");
  const tok = values[i]!;
  if (tok === "N/A") return null;
  const v = num(tok);
  if (v === null) return null;
  const isDelta = cols[i] === "delta" || (cols[i] === "either" && looksLikeDelta(tok));
  return isDelta ? (v > deltaTolerance(type, ranks) ? 1 : 0) : v;
}

/** "%5.0le" always prints an exponent; "%6g" of a count only does from 1e+06 up */
function looksLikeDelta(tok: string): boolean {
  const m = /^\d(?:\.\d+)?e([-+]\d+)$/.exec(tok);
  return m !== null && Number(m[1]) < 6;
}

/** nccl-tests ≤2.11 `DeltaMaxValue(type) * (nranks - 1)`; with the rank count unknown, the strictest multi-rank case. */
function deltaTolerance(type: string, ranks: number | null): number {
  const perType: Record<string, number> = { half: 1e-2, bfloat16: 1e-2, float: 1e-5, double: 1e-12 };
  return (perType[type] ?? 1e-200) * ((ranks ?? 2) - 1);
}
