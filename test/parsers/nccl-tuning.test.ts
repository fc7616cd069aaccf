// `require: [NVLS]` proven by the algorithm NCCL chose for the measured sizes (its TUNING lines), never
// by its init lines. Real captures (test/fixtures/nccl-info/README.md): NVIDIA/nccl #1453, an H100
// cluster with NVLS set up, whose rank 0 chose NVLSTree/Simple at 512 KiB and Tree/LL128 at 256 KiB;
// NVIDIA/nccl #1595, 8 × H100 where Ring/Simple served 768 MiB.
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { checkTransport } from "../../lib/assess/checks.ts";
import type { Measurement } from "../../lib/core/types.ts";
import { parseNcclInfo } from "../../lib/parsers/nccl-info.ts";
import { tuningLine } from "../../lib/parsers/nccl-tuning.ts";

const DIR = join(import.meta.dir, "../fixtures/nccl-info");
const fixture = (name: string) => readFileSync(join(DIR, name), "utf8");
const NVLS_INIT = fixture("h100-3node-nvls-ibext-gdrdma-glued-row.txt");
const TREE_256K = fixture("h100-3node-tuning-tree-ll128-256k.txt");
const NVLSTREE_512K = fixture("h100-3node-tuning-nvlstree-512k.txt");
const RING_768M = fixture("h100-8gpu-tuning-ring-simple-768m.txt");

/** A collective's measurement: NCCL's account from `logs`, busbw measured at `sizes`. */
function measured(logs: string[], sizes: number[]): Measurement {
  const s = parseNcclInfo(logs).summary!;
  return { metrics: {}, bySize: { busbw: sizes.map((x) => [x, 100] as [number, number]) }, transport: s };
}

const REQUIRE_NVLS = { require: ["NVLS"], forbid: ["NET/Socket"] };
const check = (m: Measurement, rule = REQUIRE_NVLS) => checkTransport("transport: { require: [NVLS], forbid: [NET/Socket] }", rule, m);

describe("tuning lines of every era", () => {
  test("2.20–2.22 (real): size, algorithm and protocol numbers", () => {
    expect(parseNcclInfo([TREE_256K, NVLSTREE_512K]).summary?.tuning).toEqual([
      { op: null, bytes: 262144, algo: "Tree", proto: "LL128" },
      { op: null, bytes: 524288, algo: "NVLSTree", proto: "Simple" },
    ]);
    expect(parseNcclInfo(RING_768M).summary?.tuning).toEqual([{ op: null, bytes: 805306368, algo: "Ring", proto: "Simple" }]);
  });

  test("2.23 and 2.24+ (written for this test, in src/enqueue.cc's format strings)", () => {
    expect(tuningLine("AllReduce: 8589934592 Bytes -> Algo 4 proto 2 time 41.5")).toEqual({ op: "AllReduce", bytes: 8589934592, algo: "NVLS", proto: "Simple" });
    expect(tuningLine("AllGather: 1048576 Bytes -> Algo PAT proto SIMPLE channel{Lo..Hi}={0..31}")).toEqual({ op: "AllGather", bytes: 1048576, algo: "PAT", proto: "Simple" });
    expect(tuningLine("AllReduce: 8 Bytes -> Algo NVLS_TREE proto LL channel{Lo..Hi}={0..0}")?.algo).toBe("NVLSTree");
    expect(tuningLine("Channel 00/0 : 0[0] -> 1[1] via P2P/IPC")).toBeNull();
  });
});

describe("require: [NVLS]", () => {
  test("NVLS set up and NVLSTree chosen at the largest size measured: passed, the choices named", () => {
    const c = check(measured([NVLS_INIT, TREE_256K, NVLSTREE_512K], [262144, 524288]));
    expect(c).toMatchObject({
      ok: true,
      message: "transport: NVLS, NET/IB, GDRDMA used; NCCL chose 256 KiB Tree/LL128, 512 KiB NVLSTree/Simple (requires NVLS, forbids NET/Socket)",
    });
  });

  test("NVLS set up, but Tree served the largest size measured: failed, naming the sizes and the choice", () => {
    const c = check(measured([NVLS_INIT, TREE_256K], [131072, 262144]));
    expect(c).toMatchObject({
      ok: false,
      message: "transport: NVLS required: NVLS was set up (NVLS init lines) but NCCL chose Tree/LL128 at 256 KiB, the largest size measured (per size: 256 KiB Tree/LL128)",
    });
  });

  test("Ring/Simple served 768 MiB on 8 × H100: failed", () => {
    expect(check(measured([RING_768M], [805306368])).message).toBe(
      "transport: NVLS required: NCCL chose Ring/Simple at 768 MiB, the largest size measured (per size: 768 MiB Ring/Simple)",
    );
  });

  test("init lines alone (NVLS set up, no tuning line): unmeasured, an error, never passed", () => {
    const c = check(measured([NVLS_INIT], [524288]));
    expect(c).toMatchObject({
      ok: false,
      measured: null,
      message:
        'transport unmeasured: NVLS required, but NCCL printed no tuning line ("… Bytes -> Algo …") for 512 KiB, the largest size measured: which algorithm served it is unknown (NCCL printed no tuning line at all: was NCCL_DEBUG_SUBSYS set without TUNING?); the init lines show NVLS set up, which is not NVLS used (requires NVLS, forbids NET/Socket)',
    });
  });

  test("tuning lines for other sizes only: unmeasured, naming the sizes they cover", () => {
    expect(check(measured([NVLS_INIT, TREE_256K], [8589934592])).message).toBe(
      'transport unmeasured: NVLS required, but NCCL printed no tuning line ("… Bytes -> Algo …") for 8 GiB, the largest size measured: which algorithm served it is unknown (its tuning lines cover 256 KiB); the init lines show NVLS set up, which is not NVLS used (requires NVLS, forbids NET/Socket)',
    );
  });

  test("NCCL before 2.20: its release builds never print the choice", () => {
    const old = ["n1:1:2 [0] NCCL INFO NCCL version 2.18.3+cuda12.2", "n1:1:2 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/IPC/read"].join("\n");
    expect(check(measured([old], [1024])).message).toBe(
      'transport unmeasured: NVLS required, but NCCL printed no tuning line ("… Bytes -> Algo …") for 1 KiB, the largest size measured: which algorithm served it is unknown (NCCL 2.18.3+cuda12.2 prints its choice only in TRACE builds; 2.20 and later print it at NCCL_DEBUG_SUBSYS=TUNING) (requires NVLS, forbids NET/Socket)',
    );
  });
});

describe("forbid: [NVLS] (the Ring test with NVLS off)", () => {
  const RULE = { require: [], forbid: ["NVLS"] };
  // written for this test, in src/init.cc's format: the channel line of a communicator without NVLS
  const NO_NVLS = "n1:1:2 [0] NCCL INFO 24 coll channels, 24 collnet channels, 0 nvls channels, 32 p2p channels, 32 p2p channels per peer";

  test("Ring chose every size: passed", () => {
    expect(checkTransport("t", RULE, measured([RING_768M, "n1:1:2 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/IPC/read"], [805306368])).ok).toBe(true);
  });

  test("NVLS never set up: passed without tuning lines (it cannot have been chosen)", () => {
    expect(checkTransport("t", RULE, measured([NO_NVLS, "n1:1:2 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/IPC/read"], [1024])).ok).toBe(true);
  });

  test("NVLSTree chosen at a measured size: failed, naming it", () => {
    expect(checkTransport("t", RULE, measured([NVLS_INIT, TREE_256K, NVLSTREE_512K], [262144, 524288])).message).toBe(
      "transport: NVLS forbidden: NCCL chose it at 512 KiB (per size: 256 KiB Tree/LL128, 512 KiB NVLSTree/Simple)",
    );
  });
});
