import { describe, expect, test } from "bun:test";
import { createProgress, progressMode } from "../../lib/report/progress.ts";
import { FIXTURES } from "../fixtures/results/fixtures.ts";

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
      "[nvlink-allreduce] latest busbw 312.4 GB/s, ranks reporting 32",
      "[nvlink-allreduce] latest busbw 401 GB/s, ranks reporting 32",
      "PASSED nvlink-allreduce [gpu-01]: busbw 475.2 GB/s at 8 GiB (≥ 400 GB/s) in 1m20s",
      "PASSED nvlink-allreduce [gpu-02]: busbw 478.2 GB/s at 8 GiB (≥ 400 GB/s) in 1m21s",
      "FAILED nvlink-allreduce [gpu-03]: busbw 181.3 GB/s at 8 GiB < 400 GB/s expected (-55%) in 1m22s",
      "PASSED nvlink-allreduce [gpu-04]: busbw 473.2 GB/s at 8 GiB (≥ 400 GB/s) in 1m23s",
      "note: SIGINT: stopping",
    ]);
    expect(out.text()).not.toContain("\x1b");
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
        "  running · 12.0 s (total 12.0 s) · busbw 312.4 GB/s · ranks reporting 8\n",
    );
    p.close();
    expect(out.chunks.at(-1)).toBe("\x1b[2A\r\x1b[J");
  });

  test("a per-node test counts the nodes that have reported, however many the platform chose", async () => {
    const out = sink(true);
    const c = clock();
    const p = createProgress({ mode: "tty", total: 1, stream: out.stream, now: c.now, color: false });
    p.testStarted("inventory", 0, "inventory", true);
    for (const n of ["gpu-01", "gpu-02", "gpu-01", "gpu-07"]) p.line(n, 0, 'GPUCHECK_INVENTORY {"host":"x"}');
    p.ranksReporting(3);
    await sleep(120);
    expect(out.chunks.at(-1)!.split("\n").slice(-3, -1)).toEqual([
      "gpucheck  test 1 of 1: inventory (inventory, per node)",
      "  running · 0.000 s (total 0.000 s) · nodes reporting 3 · ranks reporting 3",
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
    expect(out.chunks.at(-1)).toContain(" · busbw 1.28 GB/s at 4 MiB · ranks reporting 0\n");
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
    expect(lines).toEqual(["[1/1] allreduce (collective): started", "[allreduce] latest busbw 0 GB/s at 1 KiB, ranks reporting 0"]);
  });
});
