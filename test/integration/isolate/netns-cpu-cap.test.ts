// Issue 26, item 8, on the fault lab: one host under a 10 % CPU quota (test/infra/netns.sh cpu-cap),
// a pairwise gloo all-reduce with no floor on busbw and a data check `wrong: { max: 0 }` beside it
// (which once made `wrong` the headline and turned the relative rule off). The relative rule (0.93 ×
// the upper quartile of the pairs) must name the capped host and no other, run after run, on this
// shared 2-core machine whose healthy pairs spread widely.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { ResultsFile } from "../../../lib/core/types.ts";
import { gpucheck, tempDir } from "../../e2e/cli.ts";
import { NETNS_INFRA, netnsLab, type Undo } from "../infra/fault-lab.ts";

// on demand (GPUCHECK_CPU_CAP_RUNS=n), not in CI: on the shared 2-core machine the capped host's
// pairs were not always slower than the load made the others (see the brief's report, 2026-11-28)
const t = NETNS_INFRA && process.env.GPUCHECK_CPU_CAP_RUNS ? test : test.skip;
const HOSTS = 4;
/**
 * How many pairwise runs in a row (GPUCHECK_CPU_CAP_RUNS=5 as issue 26 asks); each took about 3.5 min
 * on the shared 2-core machine (8 launches, the capped host's at a tenth of a CPU).
 */
const RUNS = Number(process.env.GPUCHECK_CPU_CAP_RUNS ?? 0);
let undo: Undo | undefined;

function suite(dir: string): string {
  const lab = netnsLab();
  const path = join(dir, "suite.yaml");
  writeFileSync(
    path,
    `name: isolate-cpu-cap
defaults: { gpusPerNode: 0, ranksPerNode: 1, python: /usr/bin/python3, timeout: 120s }
platform:
  type: ssh
  ssh: { configFile: ${lab.sshConfig}, killGraceMs: 2000 }
tests:
  - name: fabric
    kind: collective
    pattern: pairwise
    collective: { op: all_reduce, minBytes: 512KiB, maxBytes: 1MiB, iters: 3, warmup: 1, backend: gloo }
    expect:
      wrong: { max: 0 }
`,
  );
  return path;
}

describe("a host under a 10 % CPU quota, no floor on busbw, a data check beside it", () => {
  let capped = "";
  beforeAll(async () => {
    if (!NETNS_INFRA) return;
    const lab = netnsLab();
    capped = lab.hosts[1]!;
    undo = await lab.cpuCap(capped, 10);
  }, 60_000);
  afterAll(async () => {
    await undo?.();
    undo = undefined;
  }, 60_000);

  t(
    `pairwise ${RUNS} time(s): the capped host named every time, and no other`,
    () => {
      const seen: string[] = [];
      for (let i = 0; i < RUNS; i++) {
        const dir = tempDir(`isolate-cpu-cap-${i}`);
        suite(dir);
        const hosts = netnsLab().hosts.slice(0, HOSTS).join(",");
        const r = gpucheck(["suite", join(dir, "suite.yaml"), "--hosts", hosts, "--out", join(dir, "out"), "--progress", "plain"], { timeoutMs: 600_000 });
        const results = JSON.parse(readFileSync(join(dir, "out", "results.json"), "utf8")) as ResultsFile;
        const iso = results.tests[0]!.isolation!;
        // judged on busbw by the relative rule, not on wrong against its bound
        expect(iso.rule).toContain("0.93 × the upper quartile of those groups");
        const notGood = iso.nodes.filter((n) => n.verdict !== "good");
        seen.push(`exit ${r.status}, bad ${iso.bad.join(",") || "none"}, not good: ${notGood.map((n) => `${n.node} ${n.verdict}: ${n.reason}`).join(" | ")}`);
      }
      // every run's verdict at once, so a miss shows what the other runs said
      const want = (s: string) => s.startsWith(`exit 1, bad ${capped}, not good: ${capped} bad: `) && !s.includes(" | ");
      expect(seen.filter((s) => !want(s))).toEqual([]);
    },
    Math.max(RUNS, 1) * 300_000,
  );
});
