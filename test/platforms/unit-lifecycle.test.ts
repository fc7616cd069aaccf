// The core-owned part of a unit's run (plugins/_shared): the one [rank N] rule, the workload's error
// line, the rank-line sink and the one function from facts to a UnitRun, without any platform.
import { describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { exitHow, lastWorkloadError, launchFailure, rankOfLine } from "../../plugins/_shared/rank-lines.ts";
import { readOutput, TAIL_LINES, UnitLog } from "../../plugins/_shared/unit-log.ts";
import { stopMessage, stopReason, unitResult } from "../../plugins/_shared/unit-result.ts";
import { tempDir } from "../tmp.ts";

const root = tempDir("gpucheck-lifecycle-");

describe("rank lines", () => {
  test("a launcher's [rank N] prefix names one of its ranks; anything else is its first rank's", () => {
    expect(rankOfLine("[rank 3] hello", [2, 3], true)).toEqual([3, "hello"]);
    expect(rankOfLine("[rank 3]", [2, 3], true)).toEqual([3, ""]);
    expect(rankOfLine("Traceback (most recent call last):", [2, 3], true)).toEqual([2, "Traceback (most recent call last):"]);
    // a rank the process does not run: the line is the process's own, kept whole
    expect(rankOfLine("[rank 7] hello", [2, 3], true)).toEqual([2, "[rank 7] hello"]);
    // a process that does not prefix (one rank, torchrun, mpirun) speaks for its first rank verbatim
    expect(rankOfLine("[rank 3] hello", [0], false)).toEqual([0, "[rank 3] hello"]);
  });

  test("the workload's error line (errors.py PREFIX) and the launcher's failed rank", () => {
    expect(lastWorkloadError("a\ngpucheck-workload: error: first\nb\ngpucheck-workload: error: second\r\n")).toBe("second");
    expect(lastWorkloadError("RuntimeError: gpucheck-workload: error: not at the start\n")).toBeUndefined();
    expect(launchFailure(["gpucheck-launch: rank 1 exited with 2", "gpucheck-launch: rank 3 exited with -9"])).toEqual({ rank: 3, code: -9 });
    expect(launchFailure(["rank 3 exited"])).toBeUndefined();
    expect(exitHow(3)).toBe("exit code 3");
    expect(exitHow(null, "SIGKILL")).toBe("signal SIGKILL");
  });
});

describe("the unit's log", () => {
  test("rank logs, the tail with host and rank (telemetry left out), the parser's text and every rank's file", async () => {
    const lines: string[] = [];
    const log = new UnitLog({ dir: join(root, "a", "all"), unit: "all", onLine: (u, r, l) => lines.push(`${u}/${r}: ${l}`) });
    log.open(1);
    log.processLine("n1", [0, 1], true, "[rank 0] GPUCHECK_RESULT {}", "n1");
    log.processLine("n1", [0, 1], true, "[rank 0] GPUCHECK_TELEMETRY {}", "n1");
    log.processLine("n1", [0, 1], true, "gpucheck-launch: rank 1 exited with 2", "n1");
    log.line(2, "gpucheck-workload: error: missing data set", "n2");
    await log.close();
    expect(lines).toEqual([
      "all/0: GPUCHECK_RESULT {}",
      "all/0: GPUCHECK_TELEMETRY {}",
      "all/0: gpucheck-launch: rank 1 exited with 2",
      "all/2: gpucheck-workload: error: missing data set",
    ]);
    expect(log.tail()).toBe("[n1 rank 0] GPUCHECK_RESULT {}\n[n1 rank 0] gpucheck-launch: rank 1 exited with 2\n[n2 rank 2] gpucheck-workload: error: missing data set");
    expect(log.output()).toBe("GPUCHECK_RESULT {}\nGPUCHECK_TELEMETRY {}\ngpucheck-launch: rank 1 exited with 2\n");
    expect(log.sourceLines("n1")).toEqual(["gpucheck-launch: rank 1 exited with 2"]);
    expect(log.lastError(2)).toBe("missing data set");
    expect(log.lastError(0)).toBeUndefined();
    const ranks = log.ranks(
      [0, 1, 2, 3],
      (r) => (r === 1 ? 2 : 0),
      (r) => (r < 2 ? "n1" : "n2"),
    );
    expect(ranks.map((r) => [r.rank, r.host, r.exitCode])).toEqual([
      [0, "n1", 0],
      [1, "n1", 2],
      [2, "n2", 0],
      [3, "n2", 0],
    ]);
    // a rank that printed nothing still has its (empty) log
    expect(readFileSync(ranks[3]!.path, "utf8")).toBe("");
    expect(readFileSync(ranks[1]!.path, "utf8")).toBe("");
  });

  test("the tail keeps the last lines; a line after close reaches the console, not a closed file", async () => {
    const seen: string[] = [];
    const log = new UnitLog({ dir: join(root, "b", "all"), unit: "all", onLine: (_u, _r, l) => seen.push(l) });
    for (let i = 0; i < 500; i++) log.line(0, `line ${i}`);
    await log.close();
    log.line(0, "late");
    const tail = log.tail().split("\n");
    expect(tail.length).toBe(TAIL_LINES);
    expect(tail.at(-1)).toBe("[rank 0] late");
    expect(seen.at(-1)).toBe("late");
    expect(readFileSync(log.path(0), "utf8").endsWith("line 499\n")).toBe(true);
  });

  test("where the ranks write their own logs (srun), the sink only reads them", async () => {
    const dir = join(root, "c", "all");
    const log = new UnitLog({ dir, unit: "all", onLine: () => {}, write: false });
    log.line(0, "from srun's file");
    await log.close();
    expect(
      log.ranks(
        [0],
        () => 0,
        () => "n1",
      )[0]!.path,
    ).toBe(join(dir, "rank-0.log"));
    expect(log.output()).toBe("");
  });

  test("a rank 0 log over the limit is cut visibly: the note says how big, what is kept and where the whole log is", () => {
    const path = join(root, "big.log");
    writeFileSync(path, "first line\nmiddle\nGPUCHECK_RESULT {}\n");
    expect(readOutput(path)).toBe("first line\nmiddle\nGPUCHECK_RESULT {}\n");
    expect(readOutput(path, 25)).toBe(
      `gpucheck: rank 0's log is 37 bytes, over the 25 bytes read for judging: only its last lines follow (the whole log: ${path})\nGPUCHECK_RESULT {}\n`,
    );
    expect(readOutput(join(root, "missing.log"))).toBe("");
  });
});

describe("facts → UnitRun", () => {
  const base = { unit: "all", hosts: ["h1"], startedAt: "2026-01-01T00:00:00.000Z", endedAt: "2026-01-01T00:00:09.000Z" };

  test("a stop wins over everything, then infrastructure, then the first failed process, then the scheduler's verdict", () => {
    const failed = { who: "rank 1", on: "h1", how: "failed with exit code 2", reason: "missing data set" };
    const stopped = { by: "timeout" as const, timeoutMs: 8000, what: "killed rank 0 (pid 12)" };
    expect(unitResult({ ...base, stopped, infra: ["x"], failed })).toMatchObject({ status: "timeout", message: "timed out after 8s: killed rank 0 (pid 12)" });
    expect(unitResult({ ...base, infra: ["host h2: unreachable", "could not start rank 3"], failed })).toMatchObject({
      status: "infra",
      message: "host h2: unreachable; could not start rank 3",
    });
    expect(unitResult({ ...base, failed, decided: { status: "completed" } })).toMatchObject({
      status: "failed",
      message: "rank 1 on h1 failed with exit code 2: missing data set",
    });
    expect(unitResult({ ...base, decided: { status: "skipped", message: "n1 is drained" } })).toMatchObject({ status: "skipped", message: "n1 is drained" });
    expect(unitResult(base)).toEqual({ ...base, status: "completed", ranks: [], output: "", tail: "" });
  });

  test("exact wording: stop messages, a failure with a platform's note, what could not be cleaned up", () => {
    expect(stopMessage("cancelled", 8000)).toBe("cancelled");
    expect(stopMessage("timeout", 60_400, "gpucheck cancelled the job")).toBe("timed out after 60s: gpucheck cancelled the job");
    expect(unitResult({ ...base, failed: { who: "rank 2", on: "node1", how: "failed with Out Of Memory", note: "job 22" } }).message).toBe(
      "rank 2 on node1 failed with Out Of Memory (job 22)",
    );
    expect(unitResult({ ...base, failed: { who: "container", on: "n3", how: "exited with 5 (rank 3)", reason: "bad GPU" }, also: ["could not reach host n3"] }).message).toBe(
      "container on n3 exited with 5 (rank 3): bad GPU; could not reach host n3",
    );
    // nothing to say for a completed unit, whatever was left over
    expect(unitResult({ ...base, also: ["could not reach host n3"] }).message).toBeUndefined();
    expect(unitResult({ ...base, infra: [] })).toMatchObject({ status: "infra" });
    expect(unitResult({ ...base, infra: [] }).message).toBeUndefined();
  });

  test("the executor's abort reason: timeout, anything else is a cancel", () => {
    const t = new AbortController();
    t.abort("timeout");
    const c = new AbortController();
    c.abort("SIGINT");
    expect([stopReason(t.signal), stopReason(c.signal)]).toEqual(["timeout", "cancelled"]);
  });
});
