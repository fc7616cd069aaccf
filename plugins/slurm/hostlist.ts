// Slurm hostlists ("gpu[001-004,007],login1") and task-range lists ("0-2,5") as squeue, sinfo,
// srun and scontrol print them. Pure; `scontrol show hostnames` does the same on a cluster, but
// gpucheck needs it where no scheduler call should be spent (parsing, planning, tests).
import { ParseError } from "../../lib/core/errors.ts";

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

/** "node[1-3],gpu-a[01-02]b[1-2]" → every host name, in order (several brackets multiply out). */
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

/** The inverse, for readable scripts: ["node1","node2","node3","gpu07"] → "node[1-3],gpu07". */
export function compressHostlist(hosts: string[]): string {
  const groups = new Map<string, { prefix: string; width: number; nums: number[] }>();
  const order: string[] = [];
  for (const h of hosts) {
    const m = /^(.*?)(\d+)$/.exec(h);
    const key = m ? `${m[1]}\0${m[2]!.startsWith("0") ? m[2]!.length : 0}` : `${h}\0bare`;
    if (!groups.has(key)) {
      groups.set(key, { prefix: m ? m[1]! : h, width: m && m[2]!.startsWith("0") ? m[2]!.length : 0, nums: [] });
      order.push(key);
    }
    if (m) groups.get(key)!.nums.push(Number(m[2]));
  }
  return order
    .map((key) => {
      const g = groups.get(key)!;
      if (key.endsWith("\0bare")) return g.prefix;
      const nums = [...new Set(g.nums)].sort((a, b) => a - b);
      const pad = (n: number) => String(n).padStart(g.width, "0");
      const runs: string[] = [];
      for (let i = 0; i < nums.length; ) {
        let j = i;
        while (j + 1 < nums.length && nums[j + 1] === nums[j]! + 1) j++;
        runs.push(i === j ? pad(nums[i]!) : `${pad(nums[i]!)}-${pad(nums[j]!)}`);
        i = j + 1;
      }
      return nums.length === 1 ? `${g.prefix}${pad(nums[0]!)}` : `${g.prefix}[${runs.join(",")}]`;
    })
    .join(",");
}
