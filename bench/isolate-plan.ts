// Isolation planning (issue 16): rounds and launches each pattern needs to name the bad nodes, against
// the naive count of every pair run one after another, N(N−1)/2. The clusters are simulated
// (test/isolate/sim.ts): the bad nodes hang (their launches time out, the failure the issue opens
// with), placed at random; each cell is the median over the seeds with the range beside it, and the
// planner's own time per isolation (wall, the simulator's few microseconds per launch included).
// Every run is checked: a cell where the bad nodes were not named exactly says in how many runs they were.
//
//   node_modules/.bin/bun bench/isolate-plan.ts [--seeds 10] [--sizes 4,8,32,232,1000] [--pairs 3]
import { isolation, type IsolationOptions, type Pattern } from "../lib/isolate/mod.ts";
import { badNodes, drive, makeCluster } from "../test/isolate/sim.ts";

const arg = (name: string, dflt: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1]! : dflt;
};
const seeds = Number(arg("seeds", "10"));
const sizes = arg("sizes", "4,8,32,232,1000").split(",").map(Number);
const k = Number(arg("pairs", "3"));
const BADS = [0, 1, 5];

const COLUMNS: Array<{ head: string; pattern: Pattern; opts: IsolationOptions }> = [
  { head: "pairwise", pattern: "pairwise", opts: {} },
  { head: `pairwise, pairs: ${k}`, pattern: "pairwise", opts: { pairs: k } },
  { head: "bisect", pattern: "bisect", opts: {} },
  { head: "adaptive", pattern: "adaptive", opts: {} },
];

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const spread = (xs: number[]) => {
  const lo = Math.min(...xs);
  const hi = Math.max(...xs);
  return lo === hi ? String(lo) : `${median(xs)} (${lo}–${hi})`;
};

const rows: string[] = [];
for (const n of sizes)
  for (const b of BADS) {
    if (n - b < 2) continue;
    const cells = COLUMNS.map(({ pattern, opts }) => {
      const rounds: number[] = [];
      const launches: number[] = [];
      const ms: number[] = [];
      let right = 0;
      // every pair of 1,000 nodes is half a million launches: simulated once, it does not depend on where the bad nodes are
      const runs = pattern === "pairwise" && !opts.pairs && n > 232 ? 1 : seeds;
      for (let s = 1; s <= runs; s++) {
        const c = makeCluster(n, { hanging: b }, 1000 * n + 10 * b + s);
        const t = performance.now();
        const v = drive(isolation(pattern, c.nodes, { ...opts, seed: s }), c, 1_000_000);
        ms.push(performance.now() - t);
        const want = badNodes(c).sort().join(",");
        if ([...v.bad].sort().join(",") === want) right++;
        rounds.push(v.rounds);
        launches.push(v.launches);
      }
      const wrong = right < runs ? ` ✗ right in ${right} of ${runs}` : "";
      return `${spread(rounds)} / ${spread(launches)} / ${median(ms).toFixed(median(ms) < 10 ? 1 : 0)}${wrong}`;
    });
    rows.push(`| ${n} | ${b} | ${(n * (n - 1)) / 2} | ${cells.join(" | ")} |`);
  }

console.log(`| nodes | bad | all pairs, one by one | ${COLUMNS.map((c) => `${c.head}: rounds / launches / planner ms`).join(" | ")} |`);
console.log(`|---:|---:|---:|${COLUMNS.map(() => "---:").join("|")}|`);
for (const r of rows) console.log(r);
