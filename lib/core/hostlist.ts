// Compact hostlist ranges, Slurm's notation: `gpu[001-998,1000],login-ib`. A report or certificate
// of 1,000 nodes names the accepted ones in a line instead of a page; expanding the ranges gives
// back exactly the names that went in (test/report/hostlist.test.ts). The Slurm platform reads and
// writes its node lists with the same two functions.
import { ParseError } from "./errors.ts";

/** A name split at its last run of digits: `gpu007-ib` → "gpu", "007", "-ib". */
const NUMBERED = /^(.*?)(\d+)(\D*)$/;

interface Group {
  prefix: string;
  suffix: string;
  /** digits of a zero-padded group (every number written with this many), 0 for unpadded numbers */
  width: number;
  numbers: Set<number>;
}

/**
 * The names as ranges, grouped by what surrounds their last number. Zero-padded numbers keep their
 * width (`gpu[008-012]`); unpadded ones run across widths (`node[8-12]`); a number too big to be
 * exact in a double, or a name without digits, is written as it is.
 */
export function compressHostlist(names: Iterable<string>): string {
  const groups = new Map<string, Group>();
  const plain = new Set<string>();
  const unique = [...new Set(names)];
  // padded numbers first, so that `gpu100` joins `gpu[098-099]` (same width) rather than a group of its own
  const split = unique.map((name) => ({ name, m: NUMBERED.exec(name) })).sort((a, b) => Number(leadingZero(b.m)) - Number(leadingZero(a.m)));
  for (const { name, m } of split) {
    if (!m || m[2].length > 15) {
      plain.add(name);
      continue;
    }
    const [, prefix, digits, suffix] = m;
    const padded = `${prefix}|${suffix}|${digits.length}`;
    const key = leadingZero(m) || groups.has(padded) ? padded : `${prefix}|${suffix}|0`;
    let g = groups.get(key);
    if (!g) groups.set(key, (g = { prefix, suffix, width: key === padded ? digits.length : 0, numbers: new Set() }));
    g.numbers.add(Number(digits));
  }
  const parts = [...groups.values()].map((g) => ({ sortKey: `${g.prefix}\u0001${g.suffix}\u0001${String(g.width).padStart(3, "0")}`, text: groupText(g) }));
  for (const p of plain) parts.push({ sortKey: p, text: p });
  return parts
    .sort((a, b) => (a.sortKey < b.sortKey ? -1 : a.sortKey > b.sortKey ? 1 : 0))
    .map((p) => p.text)
    .join(",");
}

function leadingZero(m: RegExpExecArray | null): boolean {
  return m !== null && m[2].length > 1 && m[2].startsWith("0");
}

function groupText(g: Group): string {
  const nums = [...g.numbers].sort((a, b) => a - b);
  const fmt = (n: number) => String(n).padStart(g.width, "0");
  if (nums.length === 1) return `${g.prefix}${fmt(nums[0])}${g.suffix}`;
  const ranges: string[] = [];
  for (let i = 0; i < nums.length; ) {
    let j = i;
    while (j + 1 < nums.length && nums[j + 1] === nums[j] + 1) j++;
    ranges.push(i === j ? fmt(nums[i]) : `${fmt(nums[i])}-${fmt(nums[j])}`);
    i = j + 1;
  }
  return `${g.prefix}[${ranges.join(",")}]${g.suffix}`;
}

/** "0-2,5" → [0, 1, 2, 5], keeping the zero padding of each bound: "08-10" → ["08", "09", "10"]. */
export function expandRanges(text: string): string[] {
  const out: string[] = [];
  for (const part of text.split(",")) {
    const m = /^(\d+)(?:-(\d+))?$/.exec(part.trim());
    if (!m) throw new ParseError(`bad range "${part}" in "${text}": expected N or N-M`);
    const [lo, hi = m[1]!] = [m[1]!, m[2]];
    const width = lo.length;
    if (Number(hi) < Number(lo)) throw new ParseError(`bad range "${part}" in "${text}": ${hi} is below ${lo}`);
    if (Number(hi) - Number(lo) > 100_000) throw new ParseError(`range "${part}" in "${text}" is too large`);
    for (let n = Number(lo); n <= Number(hi); n++) out.push(String(n).padStart(width, "0"));
  }
  return out;
}

/** Splits at commas that are not inside brackets. */
function topLevel(list: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let cur = "";
  for (const ch of list) {
    if (ch === "[") depth++;
    if (ch === "]") depth--;
    if (depth < 0) throw new ParseError(`unbalanced "]" in hostlist "${list}"`);
    if (ch === "," && depth === 0) {
      parts.push(cur);
      cur = "";
    } else cur += ch;
  }
  if (depth !== 0) throw new ParseError(`unbalanced "[" in hostlist "${list}"`);
  parts.push(cur);
  return parts.map((p) => p.trim()).filter(Boolean);
}

/**
 * The names a hostlist stands for, in its order: the inverse of compressHostlist, and Slurm's syntax
 * as squeue, sinfo, srun and scontrol print it (`scontrol show hostnames` without a scheduler call):
 * "node[1-3],gpu-a[01-02]b[1-2]", several brackets multiplying out.
 */
export function expandHostlist(list: string): string[] {
  const out: string[] = [];
  for (const item of topLevel(list.trim())) {
    let names = [""];
    const re = /([^[]*)(?:\[([^\]]*)\])?/gy;
    let m: RegExpExecArray | null;
    while (re.lastIndex < item.length && (m = re.exec(item)) && m[0] !== "") {
      const [, text, ranges] = m;
      const suffixes = ranges === undefined ? [""] : expandRanges(ranges);
      names = names.flatMap((n) => suffixes.map((s) => n + text + s));
    }
    out.push(...names);
  }
  return out;
}
