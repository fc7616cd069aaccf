// "did you mean" for misspelt keys and names: the closest candidate by edit distance
// (transpositions count as one edit), accepted when the distance is small for the word's length.

export function closest(word: string, candidates: Iterable<string>): string | undefined {
  const lower = word.toLowerCase();
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const c of candidates) {
    const d = c.toLowerCase() === lower ? 0 : distance(lower, c.toLowerCase());
    if (d < bestDistance) {
      best = c;
      bestDistance = d;
    }
  }
  // one edit in three characters; very short words must match but for case
  const shortest = Math.min(word.length, best?.length ?? 0);
  const allowed = shortest < 3 ? 0 : Math.max(1, Math.floor(shortest / 3));
  return best !== undefined && bestDistance <= allowed ? best : undefined;
}

/** `unknown key "gpusPerNod": did you mean "gpusPerNode"?` or `…: expected one of a, b, c`. */
export function suggest(prefix: string, word: string, candidates: readonly string[]): string {
  const near = closest(word, candidates);
  if (near !== undefined) return `${prefix}: did you mean "${near}"?`;
  return candidates.length ? `${prefix}: expected one of ${candidates.join(", ")}` : prefix;
}

/** Optimal string alignment distance (Levenshtein plus adjacent transpositions). */
function distance(a: string, b: string): number {
  const rows = a.length + 1;
  const cols = b.length + 1;
  const d: number[][] = Array.from({ length: rows }, (_, i) => Array.from({ length: cols }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i < rows; i++) {
    for (let j = 1; j < cols; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.length][b.length];
}
