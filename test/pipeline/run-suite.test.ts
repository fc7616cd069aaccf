// The whole pipeline of `gpucheck suite` in-process (preflight → execute → assess → write), on a fake
// platform that writes real rank log files: what ends up in results.json and junit.xml for a pass, a
// failing rank, a timeout, Ctrl-C and a rank that prints nothing.
import { describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { ResultsFile } from "../../lib/core/types.ts";
import { renderSummary } from "../../lib/report/summary.ts";
import { assertJunitValid } from "../report/junit-check.ts";
import { assertResultsValid } from "../report/results-check.ts";
import { tempDir } from "../tmp.ts";
import { NODE } from "./fake-platform.ts";
import { runSuite } from "./harness.ts";

const unit = (r: ResultsFile, test: string) => r.tests.find((t) => t.name === test)!.units[0]!;

describe("the pipeline with a fake platform", () => {
  test("success: a real nccl-tests table on rank 0 → PASSED with its busbw, logs and records on disk", async () => {
    const { outDir, results, junit, seen } = await runSuite([{ name: "allreduce", behaviour: "ok" }]);
    expect(results.preflight?.passed).toBe(true);
    expect(results.outcome).toBe("passed");
    expect(results.complete).toBe(true);
    const u = unit(results, "allreduce");
    expect(u.status).toBe("completed");
    expect(u.measurement?.metrics.busbw).toBe(107.63);
    expect(u.verdict.checks[0]!.message).toBe("busbw 107.6 GB/s at 128 MiB ≥ 50 GB/s expected (+115%)");
    expect(u.logs).toEqual([`logs/allreduce/${NODE}/rank-0.log`, `logs/allreduce/${NODE}/rank-1.log`]);
    expect(JSON.parse(readFileSync(join(outDir, "logs/allreduce/run-records.json"), "utf8"))[0]).toMatchObject({
      unit: "all",
      status: "completed",
      ranks: [
        { rank: 0, log: u.logs[0], exitCode: 0 },
        { rank: 1, log: u.logs[1], exitCode: 0 },
      ],
    });
    expect(junit).toContain('<testsuite name="pipeline" tests="1" failures="0" errors="0" skipped="0"');
    expect(seen.finished).toEqual(["allreduce: passed"]);
  });

  test("failure: rank 1 exits 1 → an error with the platform's message (it crashed: no threshold was missed), the next test still runs", async () => {
    const { results, junit } = await runSuite([
      { name: "broken", behaviour: "fail" },
      { name: "after", behaviour: "ok" },
    ]);
    const u = unit(results, "broken");
    expect(u.status).toBe("failed");
    expect(u.message).toBe(`rank 1 on ${NODE} failed with exit code 1: all_reduce: connection reset by peer`);
    expect(u.verdict).toMatchObject({
      outcome: "error",
      reason: `crashed before reporting results: rank 1 on ${NODE} failed with exit code 1: all_reduce: connection reset by peer`,
    });
    expect(results.tests.map((t) => t.outcome)).toEqual(["error", "passed"]);
    expect(results.outcome).toBe("error");
    expect(junit).toContain(`rank 1 on ${NODE} failed with exit code 1: all_reduce: connection reset by peer`);
  });

  test("timeout: status timeout with the platform's message; finished tests kept, the rest skipped (--fail-fast)", async () => {
    const { results, junit, seen } = await runSuite(
      [
        { name: "first", behaviour: "ok" },
        { name: "stuck", timeout: "1s", behaviour: "hang" },
        { name: "last", behaviour: "ok" },
      ],
      { failFast: true },
    );
    expect(unit(results, "first").verdict.outcome).toBe("passed");
    const u = unit(results, "stuck");
    expect(u.status).toBe("timeout");
    expect(u.message).toBe("timed out after 1s: killed rank 0 (pid 101), rank 1 (pid 102)");
    expect(u.verdict.outcome).toBe("error");
    // its output held no result: no measurement, and the parser's complaint stays out of the platform's message
    expect(u.measurement).toBeNull();
    expect(unit(results, "last")).toMatchObject({ status: "skipped", message: "not started: --fail-fast: stuck ended in an error" });
    expect(results.stopped).toBe("--fail-fast: stuck ended in an error");
    expect(results.outcome).toBe("error");
    expect(results.complete).toBe(false);
    expect(seen.notes).toContain("--fail-fast: stuck ended in an error: skipping the 1 test(s) after it");
    expect(junit).toContain("timed out after 1s: killed rank 0 (pid 101), rank 1 (pid 102)");
  });

  test("cancellation: Ctrl-C mid-test → the finished test kept, the running one cancelled, the rest not started", async () => {
    const { results, junit } = await runSuite(
      [
        { name: "first", behaviour: "ok" },
        { name: "running", behaviour: "hang" },
        { name: "never", behaviour: "ok" },
      ],
      { cancelOn: "running" },
    );
    expect(unit(results, "first").verdict.outcome).toBe("passed");
    expect(unit(results, "running")).toMatchObject({ status: "cancelled", message: "cancelled: killed rank 0 (pid 101), rank 1 (pid 102)" });
    expect(unit(results, "never")).toMatchObject({ status: "skipped", message: "not started: the run was interrupted (Ctrl-C or SIGTERM)" });
    expect(results.stopped).toBe("interrupted by Ctrl-C or SIGTERM");
    expect(results.complete).toBe(false);
    expect(results.outcome).toBe("error");
    expect(junit).toContain("not started: the run was interrupted (Ctrl-C or SIGTERM)");
  });

  test("a rank 0 that prints nothing: error, never passed", async () => {
    const { results, junit } = await runSuite([{ name: "mute", behaviour: "silent" }]);
    const u = unit(results, "mute");
    expect(u.status).toBe("completed");
    expect(u.message).toBe("no nccl-tests result rows in the output");
    expect(u.measurement).toBeNull();
    expect(u.verdict.outcome).toBe("error");
    expect(results.outcome).toBe("error");
    expect(junit).toContain("no nccl-tests result rows in the output");
  });
});

describe("written ahead: what a kill at any moment leaves", () => {
  test("while the second of three tests runs, results.json and junit.xml list it and the third as unfinished: no reader takes them for a pass", async () => {
    const { outDir, snapshot, results } = await runSuite(
      [
        { name: "first", behaviour: "ok" },
        { name: "stuck", behaviour: "hang" },
        { name: "last", behaviour: "ok" },
      ],
      { snapshotOn: "stuck", cancelOn: "stuck" },
    );
    const ahead = JSON.parse(snapshot!.results) as ResultsFile;
    expect(ahead.endedAt).toBeNull();
    expect(ahead.outcome).toBe("unfinished");
    expect(ahead.tests.map((t) => `${t.name}: ${t.outcome}`)).toEqual(["first: passed", "stuck: unfinished", "last: unfinished"]);
    expect(ahead.tests[1]!.units[0]).toMatchObject({ status: "unfinished", verdict: { outcome: "unfinished", reason: "not finished: the run stopped before this test ended" } });
    // Jenkins counts errors: two, so the build is never green
    expect(snapshot!.junit).toContain('<testsuite name="pipeline" tests="3" failures="0" errors="2" skipped="0"');
    expect(snapshot!.junit.match(/<error message="not finished: the run stopped before this test ended" type="unfinished"\/>/g)).toHaveLength(2);
    // both files are valid as they stand: a kill leaves readable evidence
    const dir = tempDir("gpucheck-ahead-");
    writeFileSync(join(dir, "results.json"), snapshot!.results);
    writeFileSync(join(dir, "junit.xml"), snapshot!.junit);
    assertResultsValid(join(dir, "results.json"));
    assertJunitValid(join(dir, "junit.xml"));
    expect(renderSummary(ahead, { color: false })).toStartWith("gpucheck pipeline (local): INCOMPLETE: 1 passed, 2 unfinished");
    expect(renderSummary(ahead, { color: false })).toContain("INCOMPLETE: the run never ended (killed, or still going): 2 tests never ended: stuck, last.");
    // the run closed: nothing is left unfinished, and the last write replaced every entry
    expect(results.endedAt).not.toBeNull();
    expect(results.tests.map((t) => t.outcome)).toEqual(["passed", "error", "skipped"]);
    expect(readFileSync(join(outDir, "junit.xml"), "utf8")).not.toContain("not finished");
  });
});
