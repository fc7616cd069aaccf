// NCCL's INFO account → the transport summary; sources of the fixtures in test/fixtures/nccl-info/README.md.
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { connectionCounts, parseNcclInfo, type TransportSummary, transportAccount, usedTransport } from "../../lib/parsers/nccl-info.ts";
import { transportFromLogs } from "../../lib/parsers/nccl-transport.ts";

const DIR = join(import.meta.dir, "../fixtures/nccl-info");
const fixture = (name: string) => readFileSync(join(DIR, name), "utf8");

function summary(name: string): TransportSummary {
  const r = parseNcclInfo(fixture(name));
  if (!r.summary) throw new Error(`${name}: ${r.reason}`);
  return r.summary;
}

describe("real NCCL INFO logs", () => {
  test("2 × A100 PCIe over the IBext_v8 plugin with GPUDirect RDMA (NCCL 2.21.5)", () => {
    const s = summary("a100pcie-2node-ibext-gdrdma-v2.21.5.txt");
    expect(s).toMatchObject({
      ncclVersion: "2.21.5+cuda12.4",
      network: "IBext_v8",
      plugin: "IBext_v8",
      transports: { "NET/IB": 8, GDRDMA: 8 },
      hcas: ["mlx5_0:1/IB/SHARP"],
      netDevices: ["IB/0"],
      gdrDisabled: [],
      nRanks: 2,
      nNodes: 2,
      localRanks: 1,
      collChannels: 2,
      nvlsChannels: null,
      infoLines: 49,
      algorithms: ["Ring", "Tree"],
      settings: { NCCL_SHM_DISABLE: "1", NCCL_NET_GDR_LEVEL: "SYS" },
    });
    expect(transportAccount(s)).toBe("8 × NET/IB, all GDRDMA · Ring and Tree connected · HCAs mlx5_0 · 2 nodes × 1 local ranks · NCCL 2.21.5+cuda12.4");
  });

  test("the same machines without GDR: NET/IB but no GDRDMA", () => {
    const s = summary("a100pcie-2node-ibext-no-gdr-v2.21.5.txt");
    expect(s.transports).toEqual({ "NET/IB": 8 });
    expect(usedTransport(s, "GDRDMA")).toBe(false);
    expect(transportAccount(s)).toBe("8 × NET/IB · no GDRDMA · Ring and Tree connected · HCAs mlx5_0 · 2 nodes × 1 local ranks · NCCL 2.21.5+cuda12.4");
  });

  test("P2P/CUMEM inside the node, IBext with PXN proxies between nodes (NCCL 2.23.4)", () => {
    const s = summary("a100sxm-4node-cumem-ibext-pxn-v2.23.4.txt");
    expect(s.transports).toEqual({ "NET/IB": 24, GDRDMA: 24, "P2P/CUMEM": 12 });
    expect(s.netDevices).toEqual(["IB/0", "IB/1", "IB/5"]);
    expect(s.ncclVersion).toBeNull();
    expect(usedTransport(s, "P2P")).toBe(true);
    expect(usedTransport(s, "NET")).toBe(true);
    expect(usedTransport(s, "P2P/IPC")).toBe(false);
  });

  test("one node: 'Using network Socket' while every connection is P2P/direct pointer", () => {
    const s = summary("rtx3090-1node-socket-p2p-direct-v2.15.5.txt");
    expect(s).toMatchObject({ ncclVersion: "2.15.5+cuda11.8", network: "Socket", transports: { "P2P/direct": 8 }, collChannels: 4 });
    expect(usedTransport(s, "NET/Socket")).toBe(false);
  });

  test("mpirun's [0] prefix; NVLS available and its heads, but no connection line", () => {
    const s = summary("h100-3node-nvls-heads-mpirun-prefix.txt");
    expect(s).toMatchObject({ nvlsAvailable: true, transports: {}, nRanks: 24, nNodes: 3, localRanks: 8, infoLines: 14 });
    expect(transportAccount(s)).toBe("no connection lines · 3 nodes × 8 local ranks");
  });

  test("an INFO line glued after a table row's keys still counts; NVLS set up, IBext with GDRDMA", () => {
    const s = summary("h100-3node-nvls-ibext-gdrdma-glued-row.txt");
    expect(s.transports).toEqual({ NVLS: 1, "NET/IB": 5, GDRDMA: 5 });
    expect(s.netDevices).toEqual(["IB/7"]);
    expect(transportAccount(s)).toBe("NVLS · 5 × NET/IB, all GDRDMA");
    expect(s.algorithms).toEqual(["NVLS"]);
  });

  test("the sockets fallback between nodes", () => {
    const s = summary("8gpu-2node-p2p-ipc-socket-fallback.txt");
    expect(s.transports).toEqual({ "P2P/IPC": 14, "NET/Socket": 2 });
    expect(s.netDevices).toEqual(["Socket/3"]);
    expect(connectionCounts(s)).toBe("14 × P2P/IPC, 2 × NET/Socket");
  });

  test("GPUDirect RDMA off for want of nvidia-peermem: every IB connection without GDRDMA", () => {
    const s = summary("2node-netib-gdr-no-module.txt");
    expect(s.transports).toEqual({ "NET/IB": 11 });
    expect(s.gdrDisabled).toEqual(["HCA 1 'mlx5_1' (no module)", "HCA 2 'mlx5_2' (no module)", "HCA 3 'mlx5_3' (no module)"]);
    expect(transportAccount(s)).toBe("11 × NET/IB · no GDRDMA · GDR disabled for HCA 1 'mlx5_1' (no module); HCA 2 'mlx5_2' (no module); HCA 3 'mlx5_3' (no module)");
  });

  test("RoCE HCAs are NCCL's IB transport; GDR disabled without a reason", () => {
    const s = summary("2node-roce-gdr-disabled.txt");
    expect(s).toMatchObject({ network: "IB", hcas: ["mlx5_0:1/RoCE", "mlx5_1:1/RoCE"], gdrDisabled: ["HCA 0 'mlx5_0'", "HCA 1 'mlx5_1'"], transports: {} });
  });

  test("NCCL 2.4 ring layout and GDR off by distance", () => {
    const s = summary("4gpu-2node-ring-gdr-distance-v2.4.7.txt");
    expect(s.transports).toEqual({ "P2P/IPC": 6, "NET/IB": 4 });
    expect(s.gdrDisabled).toEqual(["GPU 2[2] / HCA 0 (distance 3 >= 2)", "GPU 3[3] / HCA 0 (distance 3 >= 2)"]);
  });

  test("a bootstrap NET/Socket line beside NET/IB is no socket transport", () => {
    const s = summary("4gpu-2node-net-init-v2.4.7.txt");
    expect(s).toMatchObject({ ncclVersion: "2.4.7+cuda10.0", hcas: ["mlx5_0:1/IB"], transports: {} });
  });

  test("all fixtures together read as one run: counts add up", () => {
    const a = fixture("a100pcie-2node-ibext-gdrdma-v2.21.5.txt");
    const b = fixture("8gpu-2node-p2p-ipc-socket-fallback.txt");
    const r = parseNcclInfo([a, b]);
    expect(r.summary?.transports).toEqual({ "NET/IB": 8, GDRDMA: 8, "P2P/IPC": 14, "NET/Socket": 2 });
  });
});

describe("lines written for this test, in NCCL's format strings (shm.cc, net_ib.cc, init.cc)", () => {
  test("SHM, NVLS channel count, GDR disabled for want of a module, WARN, tagged lines", () => {
    const text = [
      "GPUCHECK_NCCL_INFO n1:1:2 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via SHM/direct/direct",
      "GPUCHECK_NCCL_INFO n1:1:2 [0] NCCL INFO NET/IB : GPU Direct RDMA Disabled for HCA 1 'mlx5_1' (no module)",
      "GPUCHECK_NCCL_INFO n1:1:2 [0] NCCL INFO 32 coll channels, 32 collnet channels, 16 nvls channels, 32 p2p channels, 32 p2p channels per peer",
      "n1:1:2 [0] misc/socket.cc:50 NCCL WARN socketProgress: Connection closed by remote peer",
      "n1:1:2 [0] NCCL INFO Channel 00/0 : 0[0] -> 8[0] [send] via NET/AWS Libfabric/0/GDRDMA/Shared",
    ].join("\n");
    const s = parseNcclInfo(text).summary!;
    expect(s.transports).toEqual({ SHM: 1, NVLS: 16, "NET/Libfabric": 1, GDRDMA: 1 });
    expect(s.nvlsChannels).toBe(16);
    expect(s.gdrDisabled).toEqual(["HCA 1 'mlx5_1' (no module)"]);
    expect(s.warnings).toEqual(["socketProgress: Connection closed by remote peer"]);
    expect(transportAccount(s)).toBe("NVLS (16 channels) · 1 × SHM · 1 × NET/Libfabric, all GDRDMA · GDR disabled for HCA 1 'mlx5_1' (no module)");
    expect(usedTransport(s, "NET")).toBe(true);
    expect(usedTransport(s, "NET/IB")).toBe(false);
  });

  test("NVLS available but not used, and not available", () => {
    const head = "n1:1:2 [0] NCCL INFO ";
    const used = (avail: string) =>
      parseNcclInfo(
        [
          `${head}NVLS multicast support is ${avail}available on dev 0`,
          `${head}Channel 00/0 : 0[0] -> 1[1] via P2P/CUMEM/read`,
          `${head}24 coll channels, 24 collnet channels, 0 nvls channels, 32 p2p channels, 32 p2p channels per peer`,
        ].join("\n"),
      ).summary!;
    expect(transportAccount(used(""))).toBe("1 × P2P/CUMEM · NVLS available, not used");
    expect(transportAccount(used("not "))).toBe("1 × P2P/CUMEM · NVLS not available");
  });
});

describe("what is not an NCCL log yields a reason, never a throw", () => {
  for (const [title, input] of [
    ["empty", ""],
    ["binary noise", "\u0000\u0001\uFFFD\n\r\n\t"],
    ["an nccl-tests table without INFO", "#  Rank  0 Group  0 Pid 1 on h device  0 [0x0f] NVIDIA H100\n     8   2  float  sum  -1  10.1  0.00  0.00  0"],
    ["a tool's error", "bash: all_reduce_perf: command not found"],
  ] as const) {
    test(title, () => {
      expect(parseNcclInfo(input)).toEqual({ summary: null, reason: "no NCCL INFO lines in the output" });
    });
  }

  test("non-strings in the list are skipped", () => {
    expect(parseNcclInfo([undefined as unknown as string])).toEqual({ summary: null, reason: "no NCCL INFO lines in the output" });
  });
});

describe("transportFromLogs: the account a measurement carries, or why there is none", () => {
  const record = (o: Record<string, unknown>) => `GPUCHECK_NCCL ${JSON.stringify(o)}`;

  test("gloo: the workload's own reason", () => {
    const logs = [0, 1].map((rank) => record({ rank, backend: "gloo", source: null, lines: 0, emitted: 0, capped: false, reason: "backend gloo: NCCL did not run" }));
    expect(transportFromLogs(logs)).toEqual({ unmeasured: "backend gloo: NCCL did not run" });
  });

  test("no capture and no INFO lines at all", () => {
    expect(transportFromLogs(["#  Rank 0 …", ""]).unmeasured).toBe(
      "no NCCL INFO lines in the rank logs: the workload did not capture NCCL's debug output (impl or version without capture) and NCCL_DEBUG was not INFO",
    );
  });

  test("INFO lines but no connection: unmeasured, and a capped capture says so", () => {
    const logs = [fixture("h100-3node-nvls-heads-mpirun-prefix.txt"), record({ rank: 0, backend: "nccl", source: "capture", lines: 9000, emitted: 4000, capped: true })];
    const t = transportFromLogs(logs);
    expect(t.transport?.nNodes).toBe(3);
    expect(t.unmeasured).toBe(
      'NCCL printed 14 INFO line(s) but no connection ("via …") line: a one-rank communicator, or the lines were cut (the capture of 1 rank(s) was cut at 4000 lines)',
    );
  });

  test("ranks' logs together", () => {
    const lines = fixture("8gpu-2node-p2p-ipc-socket-fallback.txt").split("\n");
    const t = transportFromLogs([
      lines
        .slice(0, 8)
        .map((l) => `GPUCHECK_NCCL_INFO ${l}`)
        .join("\n"),
      lines.slice(8).join("\n"),
    ]);
    expect(t).toEqual({ transport: expect.objectContaining({ transports: { "P2P/IPC": 14, "NET/Socket": 2 } }) });
  });
});
