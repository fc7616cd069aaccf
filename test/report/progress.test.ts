import { describe, expect, test } from "bun:test";
import { createProgress, progressMode } from "../../lib/report/progress.ts";
import { FIXTURES } from "../fixtures/results/fixtures.ts";
import type { UnitRun } from "../../lib/core/types.ts";

/** A stream that records what was written; a TTY of 100 columns when asked. */
function sink(tty = false) {
  const chunks: string[] = [];
  const stream = { isTTY: tty, columns: 100, write: (s: string) => (chunks.push(s), true) } as unknown as NodeJS.WriteStream;
  return { stream, text: () => chunks.join(""), chunks };
}

/** A clock the test moves by hand. */
function clock(start = Date.parse("2025-03-04T05:06:07Z")) {
  let t = start;
  return { now: () => t, advance: (ms: number) => (t += ms) };
}

const STAMP = /^\d\d:\d\d:\d\d /;

/** A unit as a platform reports it when it ends: 3.5 s from start to end. */
function unit(name: string, status: UnitRun["status"], message?: string): UnitRun {
  return {
    unit: name,
    hosts: [name],
    status,
    ...(message ? { message } : {}),
    startedAt: "2025-03-04T05:06:07.000Z",
    endedAt: "2025-03-04T05:06:10.500Z",
    ranks: [],
    output: "",
    tail: "",
  };
}
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("plain mode (Jenkins console)", () => {
  test("timestamped lines: test start, phase, rank output, metric, verdicts", () => {
    const out = sink();
    const c = clock();
    const p = createProgress({ mode: "plain", total: 2, stream: out.stream, now: c.now });
    const per = FIXTURES["per-node"]().tests[0];
    p.testStarted(per.name, 0, "collective", true);
    p.phase("staging the workload");
    p.line("gpu-03", 5, "\x1b[33m#  size  busbw\x1b[0m\r");
    p.line("all", 0, "hello");
    p.ranksReporting(32);
    p.metric("busbw", 312.44, "GB/s");
    c.advance(2_000);
    p.metric("busbw", 350, "GB/s"); // within 10 s of the last one: not printed
    c.advance(10_000);
    p.metric("busbw", 401, "GB/s");
    p.testFinished(per);
    p.note("SIGINT: stopping");
    p.close();
    const lines = out.text().split("\n").filter(Boolean);
    for (const l of lines) expect(l).toMatch(STAMP);
    expect(lines.map((l) => l.replace(STAMP, ""))).toEqual([
      "[1/2] nvlink-allreduce (collective, per node): started",
      "[nvlink-allreduce] staging the workload",
      "[nvlink-allreduce] [gpu-03 rank 5] #  size  busbw",
      "[nvlink-allreduce] [rank 0] hello",
      "[nvlink-allreduce] latest busbw 312.4 GB/s, 32 ranks with output",
      "[nvlink-allreduce] latest busbw 401 GB/s, 32 ranks with output",
      "PASSED nvlink-allreduce [gpu-01]: busbw 475.2 GB/s at 8 GiB (≥ 400 GB/s) in 1m20s",
      "PASSED nvlink-allreduce [gpu-02]: busbw 478.2 GB/s at 8 GiB (≥ 400 GB/s) in 1m21s",
      "FAILED nvlink-allreduce [gpu-03]: busbw 181.3 GB/s at 8 GiB < 400 GB/s expected (-55%) in 1m22s",
      "PASSED nvlink-allreduce [gpu-04]: busbw 473.2 GB/s at 8 GiB (≥ 400 GB/s) in 1m23s",
      "note: SIGINT: stopping",
    ]);
    expect(out.text()).not.toContain("\x1b");
  });

  test("a per-node test prints a line per node as it ends, with the counts; a node reported twice counts once", () => {
    const out = sink();
    const c = clock();
    const p = createProgress({ mode: "plain", total: 1, stream: out.stream, now: c.now });
    p.testStarted("inventory", 0, "inventory", true, 4);
    p.unitStarted("h1");
    p.unitStarted("h2");
    p.unitEnded(unit("h1", "completed"));
    p.unitEnded(unit("h2", "failed", "rank 0 on h2 failed with exit code 3: nvidia-smi not found"));
    p.unitEnded(unit("h3", "timeout", "timed out after 30.0 s"));
    p.unitEnded(unit("h4", "infra", "host h4 unreachable"));
    // the executor reports every unit again when the platform returns: counted once
    p.unitEnded(unit("h1", "completed"));
    p.close();
    expect(out.text().replace(/^\d\d:\d\d:\d\d /gm, "")).toBe(
      [
        "[1/1] inventory (inventory, per node): started",
        "[inventory] node h1 done in 3.500 s · 1 of 4 done, 1 running",
        "[inventory] node h2 failed: rank 0 on h2 failed with exit code 3: nvidia-smi not found in 3.500 s · 2 of 4 done (1 failed), 0 running",
        "[inventory] node h3 timed out: timed out after 30.0 s in 3.500 s · 3 of 4 done (2 failed), 0 running",
        "[inventory] node h4 infra error: host h4 unreachable in 3.500 s · 4 of 4 done (2 failed, 1 unreachable), 0 running",
        "",
      ].join("\n"),
    );
  });

  test("while nodes run, the counts and the nodes running longest are printed every statusEveryMs", async () => {
    const out = sink();
    const c = clock();
    const p = createProgress({ mode: "plain", total: 1, stream: out.stream, now: c.now, statusEveryMs: 30 });
    p.testStarted("inventory", 0, "inventory", true, 3);
    p.unitStarted("h1");
    c.advance(4_000);
    p.unitStarted("h2");
    c.advance(41_000);
    await sleep(100);
    p.unitEnded(unit("h1", "completed"));
    p.unitEnded(unit("h2", "completed"));
    const before = out.text();
    await sleep(100);
    p.close();
    expect(before).toContain("[inventory] nodes 0 of 3 done, 2 running; running longest: h1 45.0 s, h2 41.0 s\n");
    // none running: nothing more is printed
    expect(out.text()).toBe(before);
  });

  test("a fleet's verdicts list the nodes that did not pass, then one count with the slowest nodes", () => {
    const out = sink();
    const p = createProgress({ mode: "plain", total: 1, stream: out.stream, color: false });
    const per = FIXTURES["per-node"]().tests[0]!;
    // 40 nodes (a fleet is over 32): the fixture's four, ten times, each a node of its own
    const units = Array.from({ length: 10 }, (_, i) => per.units.map((u, k) => ({ ...u, unit: `n${String(i * 4 + k).padStart(2, "0")}`, durationS: i * 4 + k }))).flat();
    p.testStarted(per.name, 0, "collective", true, 40);
    p.testFinished({ ...per, units });
    p.close();
    const lines = out
      .text()
      .replace(/^\d\d:\d\d:\d\d /gm, "")
      .split("\n")
      .filter(Boolean)
      .slice(1);
    expect(lines).toHaveLength(11);
    expect(lines[0]).toStartWith("FAILED nvlink-allreduce [n02]: busbw 181.3 GB/s at 8 GiB < 400 GB/s expected (-55%)");
    expect(lines[10]).toBe("FAILED nvlink-allreduce: 30 of 40 nodes passed; longest: n39 39.0 s, n38 38.0 s, n37 37.0 s");
  });

  test("none mode writes nothing", () => {
    const out = sink();
    const p = createProgress({ mode: "none", total: 1, stream: out.stream });
    p.testStarted("x", 0, "train", false);
    p.line("all", 0, "text");
    p.testFinished(FIXTURES.passing().tests[1]);
    p.close();
    expect(out.text()).toBe("");
  });
});

describe("tty mode", () => {
  test("rank output scrolls above a status block that is redrawn in place, then erased on close", async () => {
    const out = sink(true);
    const c = clock();
    const p = createProgress({ mode: "tty", total: 3, stream: out.stream, now: c.now, color: false });
    p.testStarted("nvlink-allreduce", 1, "collective", false);
    c.advance(12_000);
    p.phase("running");
    p.ranksReporting(8);
    p.metric("busbw", 312.44, "GB/s");
    p.line("all", 3, "a line from rank 3");
    await sleep(120);
    // one write: cursor up over the old block (1 line: "starting"), clear, the queued lines, the new block
    expect(out.chunks.at(-1)).toBe(
      "\x1b[1A\r\x1b[J" +
        "[2/3] nvlink-allreduce (collective): started\n" +
        "[nvlink-allreduce] [rank 3] a line from rank 3\n" +
        "gpucheck  test 2 of 3: nvlink-allreduce (collective)\n" +
        "  running · 12.0 s (total 12.0 s) · busbw 312.4 GB/s · 8 ranks with output\n",
    );
    p.close();
    expect(out.chunks.at(-1)).toBe("\x1b[2A\r\x1b[J");
  });

  test("a per-node test counts the nodes done, failed, unreachable and running, and names those running longest", async () => {
    const out = sink(true);
    const c = clock();
    const p = createProgress({ mode: "tty", total: 1, stream: out.stream, now: c.now, color: false });
    // how many nodes: the platform's choice (k8s, an unnamed Slurm partition), so no "of N"
    p.testStarted("inventory", 0, "inventory", true);
    p.line("gpu-01", 0, 'GPUCHECK_INVENTORY {"host":"x"}');
    c.advance(5_000);
    p.unitStarted("gpu-02");
    c.advance(2_000);
    for (const n of ["gpu-01", "gpu-07"]) p.line(n, 0, 'GPUCHECK_INVENTORY {"host":"x"}');
    p.unitEnded(unit("gpu-07", "infra", "host gpu-07 unreachable: ssh: connect to host gpu-07 port 22: Connection refused"));
    p.ranksReporting(3);
    c.advance(1_000);
    await sleep(120);
    expect(out.chunks.at(-1)!.split("\n").slice(-4, -1)).toEqual([
      "gpucheck  test 1 of 1: inventory (inventory, per node)",
      "  running · 8.000 s (total 8.000 s) · nodes 1 done (1 unreachable), 2 running · 3 ranks with output",
      "  running longest: gpu-01 8.000 s, gpu-02 3.000 s",
    ]);
    p.close();
  });

  test("status lines are cut to the terminal width so the block stays one row per line", async () => {
    const out = sink(true);
    (out.stream as { columns: number }).columns = 40;
    const p = createProgress({ mode: "tty", total: 1, stream: out.stream, color: false });
    p.testStarted("a-test-with-a-rather-long-name-indeed", 0, "train", false);
    await sleep(120);
    const block = out.chunks
      .at(-1)!
      .replace(/^\x1b\[\d+A\r\x1b\[J/, "")
      .split("\n")
      .filter(Boolean)
      .slice(-2);
    for (const l of block) expect(l.length).toBeLessThanOrEqual(39);
    expect(block[0]).toEndWith("…");
    p.close();
  });

  test("colour unless NO_COLOR, and progressMode picks tty only for a real terminal", () => {
    const out = sink(true);
    const saved = process.env.NO_COLOR;
    try {
      process.env.NO_COLOR = "1";
      const p = createProgress({ mode: "tty", total: 1, stream: out.stream });
      p.close();
      expect(out.text()).not.toContain("\x1b[1m");
      delete process.env.NO_COLOR;
      const q = createProgress({ mode: "tty", total: 1, stream: out.stream });
      q.close();
      expect(out.text()).toContain("\x1b[1mgpucheck\x1b[0m");
    } finally {
      if (saved === undefined) delete process.env.NO_COLOR;
      else process.env.NO_COLOR = saved;
    }
    expect(progressMode("auto", sink(true).stream, { TERM: "xterm" })).toBe("tty");
    expect(progressMode("auto", sink(true).stream, { TERM: "dumb" })).toBe("plain");
    expect(progressMode("auto", sink(false).stream, {})).toBe("plain");
    expect(progressMode("none", sink(true).stream, {})).toBe("none");
  });
});

describe("protocol lines", () => {
  test("GPUCHECK_* lines are not shown; a progress line updates the latest number instead", async () => {
    const out = sink(true);
    const p = createProgress({ mode: "tty", total: 1, stream: out.stream, color: false });
    p.testStarted("allreduce", 0, "collective", false);
    p.line("all", 0, 'GPUCHECK_PROGRESS {"size":4194304,"busbw":1.2805,"wrong":0}');
    p.line("all", 0, 'GPUCHECK_TELEMETRY {"t":1,"gpus":[]}');
    p.line("all", 0, "GPUCHECK_NCCL_INFO test1:5425:5439 [0] NCCL INFO Channel 00/0 : 1[0] -> 0[0] [receive] via NET/IBext_v8/0/GDRDMA");
    p.line("all", 0, 'GPUCHECK_NCCL {"rank":0,"backend":"nccl","source":"capture","lines":1,"emitted":1,"capped":false}');
    p.line("all", 1, "a real line");
    await sleep(120);
    expect(out.text()).not.toContain("GPUCHECK_");
    expect(out.chunks.at(-1)).toContain("[allreduce] [rank 1] a real line\n");
    expect(out.chunks.at(-1)).toContain(" · busbw 1.28 GB/s at 4 MiB · 0 ranks with output\n");
    p.line("all", 0, 'GPUCHECK_PROGRESS {"step":10,"steps":50,"samples_per_s":123.4}');
    await sleep(120);
    expect(out.chunks.at(-1)).toContain(" · throughput 123.4 samples/s (step 10 of 50) · ");
    p.close();
  });

  test("plain mode: a progress line becomes at most one 'latest' line every 10 s", () => {
    const out = sink();
    const c = clock();
    const p = createProgress({ mode: "plain", total: 1, stream: out.stream, now: c.now });
    p.testStarted("allreduce", 0, "collective", false);
    for (let i = 0; i < 5; i++) p.line("all", 0, `GPUCHECK_PROGRESS {"size":${1024 << i},"busbw":${i}}`);
    const lines = out
      .text()
      .split("\n")
      .filter(Boolean)
      .map((l) => l.replace(STAMP, ""));
    expect(lines).toEqual(["[1/1] allreduce (collective): started", "[allreduce] latest busbw 0 GB/s at 1 KiB, 0 ranks with output"]);
  });
});
