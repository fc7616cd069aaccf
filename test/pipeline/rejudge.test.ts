// `gpucheck judge <dir>` parses the saved rank logs again (so a parser fix reaches old runs) and,
// where a log is gone, judges the saved measurement and says so.
import { describe, expect, test } from "bun:test";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { ResultsFile } from "../../lib/core/types.ts";
import { gpucheckRun } from "../e2e/cli.ts";
import { NCCL_LOG, NODE } from "./fake-platform.ts";
import { runSuite } from "./harness.ts";

/** `gpucheck judge` as mod.ts runs it (in this process: test/e2e/cli.ts's gpucheckRun) */
async function judge(dir: string, suite: string) {
  const out = `${dir}-judged`;
  const r = await gpucheckRun(["judge", dir, "--suite", suite, "--out", out]);
  return { code: r.status, err: r.stderr, out, results: JSON.parse(readFileSync(join(out, "results.json"), "utf8")) as ResultsFile };
}

const LOG = `logs/allreduce/${NODE}/rank-0.log`;
// the 128 MiB row of NCCL_LOG with both its busbw (101.70 out of place, 107.63 in place: the test's value) made 40.12
const ROW = NCCL_LOG.split("\n").find((l) => l.trim().startsWith("134217728 "))!;
const SLOWER = ROW.replace(" 101.70 ", "  40.12 ").replace(" 107.63 ", "  40.12 ");

describe("gpucheck judge re-parses the saved rank logs", () => {
  test("a rank 0 log that now reads differently gives the new value and verdict; the run itself is untouched", async () => {
    const run = await runSuite([{ name: "allreduce", behaviour: "ok" }]);
    expect(run.results.tests[0]!.units[0]!.measurement?.metrics.busbw).toBe(107.63);
    expect(ROW).toEndWith(" 101.70       0  2182.20   61.51  107.63       0");
    const before = readFileSync(join(run.outDir, "results.json"));
    writeFileSync(join(run.outDir, LOG), NCCL_LOG.replace(ROW, SLOWER));
    const j = await judge(run.outDir, join(run.outDir, "suite.yaml"));
    expect(j.err).toBe("");
    expect(j.code).toBe(1);
    const u = j.results.tests[0]!.units[0]!;
    expect(u.measurement?.metrics.busbw).toBe(40.12);
    expect(u.verdict.checks[0]!.message).toBe("busbw 40.12 GB/s at 128 MiB < 50 GB/s expected (-20%)");
    expect(j.results.outcome).toBe("failed");
    expect(readFileSync(join(run.outDir, "results.json")).equals(before)).toBe(true);
  });

  test("rank 0's output that is not its log file (saved in run-records.json) is what the re-parse reads", async () => {
    const run = await runSuite([{ name: "allreduce", behaviour: "ok" }]);
    const file = join(run.outDir, "logs/allreduce/run-records.json");
    const records = JSON.parse(readFileSync(file, "utf8"));
    // as local saves it: stdout then stderr, where the log has them interleaved
    records[0].output = NCCL_LOG.replace(ROW, SLOWER);
    writeFileSync(file, JSON.stringify(records));
    const j = await judge(run.outDir, join(run.outDir, "suite.yaml"));
    expect(j.results.tests[0]!.units[0]!.measurement?.metrics.busbw).toBe(40.12);
  });

  test("a rank log that is gone: the saved measurement is judged, and a note says which log and why", async () => {
    const run = await runSuite([{ name: "allreduce", behaviour: "ok" }]);
    rmSync(join(run.outDir, `logs/allreduce/${NODE}/rank-1.log`));
    const j = await judge(run.outDir, join(run.outDir, "suite.yaml"));
    expect(j.code).toBe(0);
    expect(j.err).toBe(`gpucheck: note: test "allreduce": rank log logs/allreduce/${NODE}/rank-1.log missing: its saved measurements were judged again, not re-parsed\n`);
    expect(j.results.tests[0]!.units[0]!.measurement).toEqual(run.results.tests[0]!.units[0]!.measurement);
  });

  test("a run from before run records: re-parsed from its rank logs, and said so", async () => {
    const run = await runSuite([{ name: "allreduce", behaviour: "ok" }]);
    rmSync(join(run.outDir, "logs/allreduce/run-records.json"));
    writeFileSync(join(run.outDir, LOG), NCCL_LOG.replace(ROW, SLOWER));
    const j = await judge(run.outDir, join(run.outDir, "suite.yaml"));
    expect(j.err).toBe(
      `gpucheck: note: test "allreduce" has no logs/allreduce/run-records.json (the run is older than run records): re-parsed from its rank logs, rank 0's output read from its log\n`,
    );
    expect(j.results.tests[0]!.units[0]!.measurement?.metrics.busbw).toBe(40.12);
  });
});
