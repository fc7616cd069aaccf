// Whole-log behaviours of the streaming parser that no single fixture shows on its own.
import { describe, expect, test } from "bun:test";
import { createNcclParser, parseNccl } from "../../lib/parsers/nccl.ts";
import { ncclFixtures } from "./nccl-fixtures.ts";

const HEADER = [
  "#       size         count      type   redop    root     time   algbw   busbw  #wrong     time   algbw   busbw  #wrong ",
  "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)             (us)  (GB/s)  (GB/s)         ",
];
const ROW1 = "     1048576        262144     float     sum      -1    61.52   17.04   31.95       0    60.87   17.23   32.30       0";
const ROW2 = "    16777216       4194304     float     sum      -1   312.40   53.70  100.69       0   310.90   53.96  101.18       0";
const FOOTER = ["# Out of bounds values : 0 OK", "# Avg bus bandwidth    : 66.5312 ", "#"];
const log = (...lines: string[]) => `${lines.join("\n")}\n`;

test("a table without header or preamble (a pasted tail): layout inferred, ranks and collective unknown", () => {
  const r = parseNccl(log(ROW1, ROW2, ...FOOTER));
  expect([r.rows.length, r.rows[1]!.inPlace?.busbwGBs, r.ranks, r.collective, r.complete]).toEqual([2, 101.18, null, null, true]);
});

test("CRLF line endings", () => {
  const r = parseNccl(log(...HEADER, ROW1, ...FOOTER).replace(/\n/g, "\r\n"));
  expect([r.rows.length, r.avgBusbwGBs, r.complete]).toEqual([1, 66.5312, true]);
});

test("a row cut after its keys and never continued is dropped when the footer comes", () => {
  const r = parseNccl(log(...HEADER, ROW1, "    16777216       4194304     float     sum      -1", "node01:1:1 [0] NCCL INFO x", ...FOOTER));
  expect(r.rows.map((x) => x.size)).toEqual([1048576]);
  expect(r.complete).toBe(true);
});

test("a row cut after its keys is dropped when the next row starts", () => {
  const r = parseNccl(log(...HEADER, "     1048576        262144     float     sum      -1", ROW2, ...FOOTER));
  expect(r.rows.map((x) => x.size)).toEqual([16777216]);
});

test("GPUCHECK_ lines are ignored whole, even when they quote a failure", () => {
  const r = parseNccl(log(...HEADER, 'GPUCHECK_PROGRESS {"note":"node01: Test NCCL failure common.cu:1 \'x\'"}', ROW1, ...FOOTER));
  expect([r.failure, r.complete, r.rows.length]).toEqual([null, true, 1]);
});

test("a failure printed by another rank (mpirun --tag-output) is the run's failure", () => {
  const tag = (rank: number, s: string) => `[1,${rank}]<stdout>:${s}`;
  const r = parseNccl(log(...HEADER.map((l) => tag(0, l)), tag(0, ROW1), tag(3, "node01: Test CUDA failure common.cu:502 'unspecified launch failure'")));
  expect([r.rows.length, r.complete, r.failure]).toEqual([1, false, "Test CUDA failure common.cu:502 'unspecified launch failure'"]);
});

test("a TESTCHECK frame with nothing to explain it is the failure", () => {
  const r = parseNccl(log(...HEADER, ROW1, " .. node01 pid 4100: Test failure common.cu:1091"));
  expect(r.failure).toBe("Test failure common.cu:1091");
});

test("the first root failure wins over frames printed before it", () => {
  const r = parseNccl(
    log(...HEADER, " .. node02 pid 4108: Test failure common.cu:623", "node01: Test NCCL failure common.cu:514 'remote process exited or there was a network error / '"),
  );
  expect(r.failure).toBe("Test NCCL failure common.cu:514 'remote process exited or there was a network error / '");
});

test("only stderr's 'Invalid number of GPUs' (nothing else printed)", () => {
  const p = createNcclParser();
  p.push("Invalid number of GPUs: 8 requested but only 4 were found.\nPlease check the number of processes and GPUs per process.\n");
  expect(p.end()).toEqual({
    collective: null,
    ranks: null,
    rows: [],
    maxBusbwGBs: null,
    avgBusbwGBs: null,
    outOfBounds: null,
    complete: false,
    failure: "Invalid number of GPUs: 8 requested but only 4 were found.",
  });
  expect(p.recognizedLines).toBe(1);
});

test.each(['{"event":"job started"}', '{"version":"1.2","tool":"prolog"}'])("a log whose first line is other JSON (%s) is still read as text", (first) => {
  const r = parseNccl(log(first, ...HEADER, ROW1, ...FOOTER));
  expect([r.rows.length, r.complete]).toEqual([1, true]);
});

test("a line longer than 1 MiB without a newline does not hold up the parse", () => {
  const p = createNcclParser();
  p.push(log(...HEADER, ROW1));
  p.push("x".repeat(3 << 20));
  p.push(`\n${log(ROW2, ...FOOTER)}`);
  const r = p.end();
  expect([r.rows.length, r.complete]).toEqual([2, true]);
});

describe("counters the CLI reports", () => {
  test.each([
    ["two-runs-one-log.txt", 2],
    ["non-mpi-one-report-per-process-srun.txt", 2],
    ["srun-label-mpi-16rank-v2.19.6.txt", 1],
    ["json-v1-typo-keys-2.17.3.json", 1],
  ])("%s holds %i report(s)", (name, reports) => {
    const p = createNcclParser();
    p.push(ncclFixtures().find((f) => f.name === name)!.text);
    p.end();
    expect(p.reports).toBe(reports);
    expect(p.recognizedLines).toBeGreaterThan(0);
  });

  test("noise only: nothing recognised", () => {
    const p = createNcclParser();
    p.push("node01:1:1 [0] NCCL INFO Bootstrap\n# a shell comment\nAuthorization required\n");
    p.end();
    expect([p.recognizedLines, p.reports]).toEqual([0, 0]);
  });
});

test("megabytes of blank lines before the log are not kept", () => {
  const p = createNcclParser();
  for (let i = 0; i < 64; i++) p.push("\n".repeat(1 << 16));
  p.push("   ");
  p.push(log(ROW1.trimStart(), ...FOOTER));
  const r = p.end();
  expect([r.rows.length, r.complete]).toEqual([1, true]);
});
