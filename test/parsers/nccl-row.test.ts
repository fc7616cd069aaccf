// Table layouts of every era and rows read piece by piece.
import { describe, expect, test } from "bun:test";
import { inferLayout, layoutFromHeader, MODERN_LAYOUT } from "../../lib/parsers/nccl-layout.ts";
import { buildRow, matchPieces, rowShape } from "../../lib/parsers/nccl-row.ts";

const words = (header: string) => header.replace(/^#/, "").trim().split(/\s+/);

describe("layoutFromHeader", () => {
  test("v2.13+ (five keys, #wrong)", () => {
    expect(layoutFromHeader(words("#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong"))).toEqual(MODERN_LAYOUT);
  });
  test("≤v2.11 all_reduce: no root, error = max delta", () => {
    expect(layoutFromHeader(words("#       size         count      type   redop     time   algbw   busbw  error     time   algbw   busbw  error"))).toEqual({
      keys: ["size", "count", "type", "redop"],
      cols: ["time", "algbw", "busbw", "delta"],
      placements: 2,
      timestamp: false,
      timeScale: 1,
    });
  });
  test("≤v2.11 all_gather: three keys", () => {
    expect(layoutFromHeader(words("#       size         count      type     time   algbw   busbw  error     time   algbw   busbw  error"))?.keys).toEqual([
      "size",
      "count",
      "type",
    ]);
  });
  test("v1.0 broadcast: bytes N type root, one placement, time in ms", () => {
    expect(layoutFromHeader(words("#      bytes             N    type    root     time  algbw  busbw      res"))).toEqual({
      keys: ["size", "count", "type", "root"],
      cols: ["time", "algbw", "busbw", "delta"],
      placements: 1,
      timestamp: false,
      timeScale: 1000,
    });
  });
  test("-I 1 per-iteration columns, -S 1 timestamp, -C 1 cputime", () => {
    const l = layoutFromHeader(
      words(
        "#       size         count      type   redop    root  cputime   algbw   busbw  #wrong    i_min    i_max    i_p99    i_cv%  cputime   algbw   busbw  #wrong    i_min    i_max    i_p99    i_cv%           timestamp",
      ),
    );
    expect(l).toEqual({ keys: MODERN_LAYOUT.keys, cols: ["time", "algbw", "busbw", "wrong", "stat", "stat", "stat", "stat"], placements: 2, timestamp: true, timeScale: 1 });
  });
  test.each(["#        (B)    (elements)                               (us)  (GB/s)  (GB/s)", "# size of the job: 16", "# size count type"])("%j is not a header", (line) => {
    expect(layoutFromHeader(words(line))).toBeNull();
  });
});

describe("inferLayout (no header in the log)", () => {
  const row = (s: string) => s.trim().split(/\s+/);
  test.each<[string, string, string[], number, boolean]>([
    ["modern", "     1048576        262144     float     sum      -1    61.52   17.04   31.95       0    60.87   17.23   32.30       0", MODERN_LAYOUT.keys, 4, false],
    [
      "≤v2.11 with redop",
      "        8             2     float     sum    13.37    0.00    0.00  1e-07    14.59    0.00    0.00  0e+00",
      ["size", "count", "type", "redop"],
      4,
      false,
    ],
    [
      "≤v2.11 all_gather, time ≥ 10000 without decimals",
      "   134217728      8388608     float    21410    6.27    9.40  2e-07    21407    6.27    9.40  2e-07",
      ["size", "count", "type"],
      4,
      false,
    ],
    [
      "≤v2.11 broadcast with root",
      "     1048576        262144     float       0    89.21   11.75   11.75  0e+00    88.90   11.80   11.80  0e+00",
      ["size", "count", "type", "root"],
      4,
      false,
    ],
    [
      "-S 1",
      "     1048576        262144     float     sum      -1    23.05   45.49   79.61       0    22.87   45.85   80.24       0  2026-07-09 14:02:51",
      MODERN_LAYOUT.keys,
      4,
      true,
    ],
    [
      "-I 1",
      "     1048576        262144     float     sum      -1    21.87   47.95   83.90       0    20.93    27.41    27.41     6.12    21.61   48.52   84.91       0    20.71    25.02    25.02     4.87",
      MODERN_LAYOUT.keys,
      8,
      false,
    ],
  ])("%s", (_what, line, keys, width, timestamp) => {
    const l = inferLayout(row(line));
    expect([l.keys, l.cols.length, l.placements, l.timestamp] as unknown[]).toEqual([keys, width, 2, timestamp]);
  });

  test("the #wrong column decides by the token's form: %5.0le always has an exponent, a count from 1e+06 only", () => {
    const l = inferLayout(row("        8             2     float     sum    13.37    0.00    0.00  1e-07    14.59    0.00    0.00  0e+00"));
    const legacy = buildRow(row("    8  2  float  sum    13.37  0.00  0.00  3e+00    14.59  0.00  0.00  0e+00"), l, 4);
    expect([legacy.outOfPlace?.wrong, legacy.inPlace?.wrong]).toEqual([1, 0]);
    const modern = buildRow(
      row("    8  2  float  sum  -1  13.37  0.00  0.00  1.23457e+06    14.59  0.00  0.00  0"),
      inferLayout(row("    8  2  float  sum  -1  13.37  0.00  0.00  1.23457e+06    14.59  0.00  0.00  0")),
      4,
    );
    expect([modern.outOfPlace?.wrong, modern.inPlace?.wrong]).toEqual([1234570, 0]);
  });
});

describe("matchPieces", () => {
  const shape = rowShape(MODERN_LAYOUT);
  const toks = (s: string) => s.trim().split(/\s+/);

  test("a whole row", () => {
    expect(matchPieces(toks("8 2 float sum -1 12.90 0.00 0.00 0 12.87 0.00 0.00 0"), 0, shape)).toHaveLength(13);
  });
  test("keys with an INFO line glued to the root", () => {
    expect(matchPieces(toks("1024 256 float sum -1node01:31337:31401 [0] NCCL INFO Channel 00/24"), 0, shape)).toEqual(["1024", "256", "float", "sum", "-1"]);
  });
  test("keys with a failure glued to the root of a legacy all_gather (type is the last key)", () => {
    const l = layoutFromHeader(words("# size count type time algbw busbw error time algbw busbw error"))!;
    expect(matchPieces(toks("4096 256 floatnode01: Test CUDA failure common.cu:1 'x'"), 0, rowShape(l))).toEqual(["4096", "256", "float"]);
  });
  test("a continuation: the out-of-place piece with the next INFO line glued to #wrong", () => {
    expect(matchPieces(toks("    14.21    0.07    0.13       0gpu-a17:31337:31401 [0] NCCL INFO x"), 5, shape)).toEqual(["14.21", "0.07", "0.13", "0"]);
  });
  test("N/A glued", () => {
    expect(matchPieces(toks("    14.21    0.07    0.13    N/Anode01:1:1 [0] NCCL INFO x"), 5, shape)).toEqual(["14.21", "0.07", "0.13", "N/A"]);
  });
  test("a piece cut in its middle is not taken", () => {
    expect(matchPieces(toks("8 2 float sum -1 12.90 0.00"), 0, shape)).toEqual(["8", "2", "float", "sum", "-1"]);
    expect(matchPieces(toks("8 2 float sum -1 12.90 0.0node01: Test NCCL failure"), 0, shape)).toEqual(["8", "2", "float", "sum", "-1"]);
  });
  test("noise that starts like a number is not a continuation", () => {
    expect(matchPieces(toks("  10-0-0-1:77:77 [0] NCCL INFO x"), 5, shape)).toEqual([]);
    expect(matchPieces(toks("  12 processes have sent help message"), 5, shape)).toEqual([]);
  });
});

describe("buildRow", () => {
  test("v1 ms become µs without float noise", () => {
    const l = layoutFromHeader(words("# bytes N type op time algbw busbw res time algbw busbw res"))!;
    const r = buildRow("1024 256 float sum 0.118 0.05 0.07 1e-07 2.114 0.05 0.08 1e-07".split(" "), l, 4);
    expect([r.outOfPlace?.timeUs, r.inPlace?.timeUs, r.root]).toEqual([118, 2114, null]);
  });
  test.each([
    ["half", 8, "6e-02", 0],
    ["half", 8, "8e-02", 1],
    ["float", 4, "2e-07", 0],
    ["float", 1, "1e-07", 1],
    ["double", 2, "1e-12", 0],
    ["int32", 8, "1e+00", 1],
    ["int32", 8, "0e+00", 0],
    ["float", null, "1e-05", 0],
    ["float", null, "2e-05", 1],
  ])("error column: %s on %p ranks with max delta %s → wrong %i", (type, ranks, delta, wrong) => {
    const l = layoutFromHeader(words("# size count type redop time algbw busbw error time algbw busbw error"))!;
    const r = buildRow(`8 2 ${type} sum 13.37 0.00 0.00 ${delta} 14.59 0.00 0.00 N/A`.split(" "), l, ranks);
    expect([r.outOfPlace?.wrong, r.inPlace?.wrong]).toEqual([wrong, null]);
  });
  test("nan and inf are null", () => {
    const r = buildRow("0 0 float none -1 0.00 nan -nan 0 inf inf inf N/A".split(" "), MODERN_LAYOUT, 8);
    expect([r.outOfPlace, r.inPlace]).toEqual([
      { timeUs: 0, algbwGBs: null, busbwGBs: null, wrong: 0 },
      { timeUs: null, algbwGBs: null, busbwGBs: null, wrong: null },
    ]);
  });
});
