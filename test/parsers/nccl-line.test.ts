// One line of an nccl-tests log: launcher prefixes, '#' lines of every era, failures.
import { describe, expect, test } from "bun:test";
import { collectiveName, findFailure, launcherPrefix, readMeta } from "../../lib/parsers/nccl-line.ts";

describe("launcherPrefix", () => {
  test.each([
    [" 0: #  Rank  0 Group  0", "0", "#  Rank  0 Group  0"],
    ["15:      1048576   262144", "15", "     1048576   262144"],
    ["3: ", "3", ""],
    ["[1,0]<stdout>:#       size", "0", "#       size"],
    ["[1,12]<stderr>:node02: Test NCCL failure", "12", "node02: Test NCCL failure"],
    ["[1,0]<stdout>: # Open MPI 5 adds a space", "0", "# Open MPI 5 adds a space"],
    ["[gpu-a17 rank 3] node: x", "3", "node: x"],
    ["[rank 0] # Out of bounds values : 0 OK", "0", "# Out of bounds values : 0 OK"],
  ])("%j names rank %s", (line, label, rest) => {
    const { label: got, cut } = launcherPrefix(line);
    expect([got, line.slice(cut)]).toEqual([label, rest]);
  });

  test.each([
    "           8             2     float     sum      -1    12.90",
    "node01:4100:4100 [0] NCCL INFO Bootstrap",
    "[p5-st-1:04211] 7 more processes have sent help message help-mpi-btl-base.txt / btl:no-nics",
    "10.0.0.1: Test NCCL failure common.cu:1 'x'",
  ])("%j has no launcher prefix", (line) => {
    expect(launcherPrefix(line)).toEqual({ label: "", cut: 0 });
  });
});

describe("readMeta", () => {
  test.each([
    ["# nccl-tests version 2.19.6 nccl-headers=22907 nccl-library=22907", { kind: "preamble" }],
    ["# nThread 1 nGpus 1 minBytes 8 maxBytes 8589934592 step: 2(factor) warmup iters: 1 iters: 20", { kind: "preamble" }],
    ["nThread 1 nGpus 4 minBytes 8 maxBytes 1048576 step: 2(factor) warmup iters: 5 iters: 20 validation: 1 ", { kind: "preamble" }],
    ["# Using devices", { kind: "preamble" }],
    ["#  Rank  7 Group  0 Pid   6906 on ztan-mig-235z device  7 [0000:8c:00] NVIDIA H100 80GB HBM3", { kind: "rank" }],
    ["#   Rank  0 Pid 201685 on bessemer-node026 device  0 [0x3d] Tesla V100-PCIE-32GB", { kind: "rank" }],
    ["#   Rank  0 on   dgx1-03 device  0 [0x06] Tesla V100-SXM2-16GB", { kind: "rank" }],
    ["# Collective test starting: all_reduce_perf_mpi", { kind: "collective", name: "all_reduce", starting: true }],
    ["# Collective test concluded: reduce_scatter_perf", { kind: "collective", name: "reduce_scatter", starting: false }],
    ["# Out of bounds values : 0 OK", { kind: "outOfBounds", value: 0, failed: false }],
    ["# Out of bounds values : 12 FAILED", { kind: "outOfBounds", value: 12, failed: true }],
    [" Out of bounds values : 0 OK", { kind: "outOfBounds", value: 0, failed: false }],
    ["# Avg bus bandwidth    : 17.8617 ", { kind: "avg", value: 17.8617, failed: false }],
    ["# Avg bus bandwidth    : 382.5 FAILED", { kind: "avg", value: 382.5, failed: true }],
    ["# Avg bus bandwidth    : 4.42606", { kind: "avg", value: 4.42606, failed: false }],
    [" Avg bus bandwidth    : 3.8125 ", { kind: "avg", value: 3.8125, failed: false }],
    ["# Avg bus bandwidth    : nan ", { kind: "avg", value: null, failed: false }],
    ["# error: NET/IB : Got async event : port error", { kind: "comment" }],
    ["#        (B)    (elements)                               (us)  (GB/s)  (GB/s)", { kind: "comment" }],
    ["#                                                              out-of-place                       in-place", { kind: "comment" }],
    ["# GPU memory usage     : Initialization 1.23 GB | User-Allocated 4.00 GB | Collective 0.50 GB | Total  5.73 GB", { kind: "comment" }],
    ["#", { kind: "comment" }],
  ])("%j", (line, meta) => {
    expect(readMeta(line)).toEqual(meta as never);
  });

  test("a header line carries its layout", () => {
    const m = readMeta("#       size         count      type   redop    root     time   algbw   busbw  #wrong     time   algbw   busbw  #wrong ");
    expect(m?.kind === "header" && m.layout.keys).toEqual(["size", "count", "type", "redop", "root"]);
  });

  test.each(["node01:77:77 [0] NCCL INFO Init COMPLETE", "Authorization required, but no authorization protocol specified", "  Local host: node01"])(
    "%j is not nccl-tests' own",
    (line) => {
      expect(readMeta(line)).toBeNull();
    },
  );
});

test.each([
  ["all_reduce_perf", "all_reduce"],
  ["all_reduce_perf_mpi", "all_reduce"],
  ["/opt/nccl-tests/build/alltoall_perf", "alltoall"],
  ["./sendrecv_perf", "sendrecv"],
  ["my_wrapper", "my_wrapper"],
])("collectiveName(%j) = %j", (program, name) => {
  expect(collectiveName(program)).toBe(name);
});

describe("findFailure", () => {
  test.each([
    ["node01: Test NCCL failure common.cu:392 'unhandled system error / '", { root: true, text: "Test NCCL failure common.cu:392 'unhandled system error / '" }],
    ["node01: Test NCCL failure common.cu:1005 'unhandled cuda error'   ", { root: true, text: "Test NCCL failure common.cu:1005 'unhandled cuda error'" }],
    [
      "   4194304   1048576   float   sum   -1gpu-1-1: Test CUDA failure common.cu:892 'an illegal memory access was encountered'",
      { root: true, text: "Test CUDA failure common.cu:892 'an illegal memory access was encountered'" },
    ],
    ["node01: Test timeout (60s) common.cu:523", { root: true, text: "Test timeout (60s) common.cu:523" }],
    [" .. node01 pid 4100: Test failure common.cu:1454", { root: false, text: "Test failure common.cu:1454" }],
    ["Invalid number of GPUs: 8 requested but only 4 were found.", { root: true, text: "Invalid number of GPUs: 8 requested but only 4 were found." }],
  ])("%j", (line, failure) => {
    expect(findFailure(line)).toEqual(failure);
  });

  test.each([
    "node01:77:77 [0] NCCL WARN NET/IB : Got async event : port error",
    "node01:77:77 [0] NCCL INFO comm 0x1 rank 0 nranks 8 - Init COMPLETE: Test run",
    "# Collective test concluded: all_reduce_perf",
  ])("%j is not a failure", (line) => {
    expect(findFailure(line)).toBeNull();
  });
});
