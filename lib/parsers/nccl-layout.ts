// The column layout of an nccl-tests results table, read from its header line. Layouts changed
// over the years (see the format notes in test/fixtures/nccl/README.md):
//   v1.x     bytes N type [op] [root] | time(ms) algbw busbw res      (res = max |delta|)
//   ≤v2.11   size count type [redop] [root] | time algbw busbw error  (error = max |delta|)
//   ≥v2.13   size count type redop root | time algbw busbw #wrong
//   ≥v2.19.2 -I 1 adds i_min i_max i_p99 i_cv% to each placement; -S 1 adds a timestamp at the end.
// A row is read as pieces (keys, each placement, the timestamp) because NCCL's own INFO lines can be
// glued to the end of any piece: nccl-tests prints a row in parts while collectives run.

export type KeyCol = "size" | "count" | "type" | "redop" | "root";
/** wrong = #wrong count; delta = max |delta| (old layouts); either = decide by the token's form (no header seen) */
export type Col = "time" | "algbw" | "busbw" | "wrong" | "delta" | "either" | "stat";

export interface Layout {
  keys: KeyCol[];
  /** columns of one placement */
  cols: Col[];
  /** 2 (out-of-place, in-place), or 1 (v1 broadcast) */
  placements: number;
  timestamp: boolean;
  /** µs per unit of the time column: v1.x printed milliseconds */
  timeScale: number;
}

const KEY_NAMES: Record<string, KeyCol> = { size: "size", bytes: "size", count: "count", N: "count", type: "type", redop: "redop", op: "redop", root: "root" };
const COL_NAMES: Record<string, Col> = { time: "time", cputime: "time", algbw: "algbw", busbw: "busbw", "#wrong": "wrong", error: "delta", res: "delta" };

export const MODERN_LAYOUT: Layout = { keys: ["size", "count", "type", "redop", "root"], cols: ["time", "algbw", "busbw", "wrong"], placements: 2, timestamp: false, timeScale: 1 };

/** The layout named by a header line's words (without the leading '#'), or null if they are not a header. */
export function layoutFromHeader(words: string[]): Layout | null {
  const keys: KeyCol[] = [];
  let i = 0;
  for (; i < words.length && KEY_NAMES[words[i]!] !== undefined; i++) keys.push(KEY_NAMES[words[i]!]!);
  if (keys[0] !== "size" || keys[1] !== "count" || !keys.includes("type")) return null;
  const cols: Col[] = [];
  let placements = 0;
  let timestamp = false;
  for (; i < words.length; i++) {
    const w = words[i]!;
    if (w === "timestamp") timestamp = true;
    else if (COL_NAMES[w] === "time") placements++;
    if (placements === 1 && w !== "timestamp") cols.push(COL_NAMES[w] ?? "stat");
  }
  if (placements === 0 || cols.length < 4) return null;
  return { keys, cols, placements: Math.min(placements, 2), timestamp, timeScale: words[0] === "bytes" ? 1000 : 1 };
}

const INT = /^-?\d+$/;
const PLACEMENT_SHAPES: Record<number, [cols: number, placements: number, timestamp: boolean]> = {
  4: [4, 1, false],
  6: [4, 1, true],
  8: [4, 2, false],
  10: [4, 2, true],
  16: [8, 2, false],
  18: [8, 2, true],
};

/**
 * A layout guessed from a whole row when the log has no header (a tail, a copied table): the redop
 * and root columns and the per-placement width follow from what the tokens are and how many.
 */
export function inferLayout(tokens: string[]): Layout {
  const keys: KeyCol[] = ["size", "count", "type"];
  if (tokens[3] !== undefined && /^[a-z]+$/.test(tokens[3])) keys.push("redop");
  let rest = tokens.length - keys.length;
  if (INT.test(tokens[keys.length] ?? "") && PLACEMENT_SHAPES[rest - 1]) {
    keys.push("root");
    rest--;
  }
  const shape = PLACEMENT_SHAPES[rest];
  if (!shape) return MODERN_LAYOUT;
  const [width, placements, timestamp] = shape;
  const cols: Col[] = ["time", "algbw", "busbw", "either", ...Array<Col>(width - 4).fill("stat")];
  return { keys, cols, placements, timestamp, timeScale: 1 };
}
