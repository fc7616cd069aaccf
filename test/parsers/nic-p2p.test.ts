// nic without perftest: each HCA's NCCL send/recv record (workload/gpucheck_workload/nic_p2p.py) →
// the same nic part as perftest's, marked nccl-p2p, credited only when both children's NCCL INFO
// lines show NET/IB on that HCA. The children's INFO lines are the real two-node capture in
// test/fixtures/nccl-info/a100pcie-2node-ibext-gdrdma-v2.21.5.txt (each node's own lines, as its
// child would print them) and the sockets fallback capture beside it.
import { expect, test } from "bun:test";
import { componentChecks } from "../../lib/assess/components.ts";
import type { ComponentValues } from "../../lib/core/types.ts";
import type { Expectation } from "../../lib/core/types.ts";
import { nicMeasurement } from "../../lib/kinds/nic/parse.ts";
import { fixtureText, infoLines } from "./nccl-info-lines.ts";

/** the HCA pairs' parts: the TCP route between the ranks is a part too, tested in nic.test.ts */
const hcaParts = (m: { components?: ComponentValues[] }) => (m.components ?? []).filter((c) => !c.part.name?.startsWith("TCP "));

const fixture = (name: string) => fixtureText("nccl-info", name);
const gdr = fixture("a100pcie-2node-ibext-gdrdma-v2.21.5.txt");
const socketRun = fixture("8gpu-2node-p2p-ipc-socket-fallback.txt");
const timings = (gbit: number) => `GPUCHECK_P2P ${JSON.stringify({ gbit_s: gbit, best_gbit_s: gbit + 4, lat_us: 9.8125, lat_bytes: 8, lat_iters: 200, gpu: 0, bytes: 268435456 })}`;
const env = (dev: string) => ({ NCCL_IB_HCA: `=${dev}:1`, NCCL_NET: "IB" });
const child = (output: string, rc = 0) => ({ command: "python3 -m gpucheck_workload.nic_p2p …", rc, output });
const hca = (device: string, p2p: object, gpu: number | null = 0) => ({
  device,
  port: 1,
  rate_gbps: 400,
  state: "ACTIVE",
  link_layer: "InfiniBand",
  gpu_server: gpu,
  gpu_client: gpu,
  source: "nccl-p2p",
  perftest: "ib_read_lat, ib_write_bw not found on node0; ib_read_lat, ib_write_bw not found on node1 (install perftest)",
  p2p: { source: "nccl-p2p", env: env(device), ...p2p },
});
const TCP = { interface: "eth0", local_addr: "10.0.0.2", peer_addr: "10.0.0.1", bytes: 268435456, seconds: 0.25, gbyte_s: 1.07, rtt_us: 31.5, pings: 200 };
const result = (hcas: object[]) =>
  `GPUCHECK_RESULT ${JSON.stringify({ world_size: 2, torch: "2.4.0", server: { host: "node0", addr: "10.0.0.1" }, client: { host: "node1" }, no_ib: null, size: 1048576, iters: 5000, hcas, tcp: TCP })}\n`;
const onIb = (gbit: number) => ({ server: child(`${infoLines(gdr, "test1")}\n${timings(gbit)}\n`), client: child(`${infoLines(gdr, "test2")}\n`) });

test("an HCA measured by NCCL send/recv is the same nic part, marked nccl-p2p, with how the bytes crossed", () => {
  const m = nicMeasurement(result([hca("mlx5_0", onIb(371.5))]));
  expect(hcaParts(m)).toEqual([
    {
      part: { type: "nic", host: "node0", name: "mlx5_0", index: 0 },
      metrics: { nic_bw_gbps: 371.5, nic_lat_us: 9.813 },
      unmeasured: {},
      source: "nccl-p2p",
      details: {
        nic_bw_gbps: "371.5 Gb/s NCCL send/recv, best 375.5, 268435456-byte messages (nccl-p2p, NCCL_IB_HCA==mlx5_0:1: 4 × NET/IB, all GDRDMA on mlx5_0:1, from GPU 0)",
        nic_lat_us: "9.813 µs one way, half the mean 8-byte NCCL round trip (nccl-p2p, NCCL_IB_HCA==mlx5_0:1: 4 × NET/IB, all GDRDMA on mlx5_0:1, from GPU 0)",
      },
    },
  ]);
  expect(m.metrics.nic_bw_gbps_min).toBe(371.5);
  expect(m.details!.nic_bw_gbps_min).toBe(
    "node0 mlx5_0 port 1 (400 Gb/s, nearest GPU 0) → node1 mlx5_0 (nearest GPU 0): 371.5 Gb/s NCCL send/recv, best 375.5, 268435456-byte messages (nccl-p2p, NCCL_IB_HCA==mlx5_0:1: 4 × NET/IB, all GDRDMA on mlx5_0:1, from GPU 0)",
  );
});

test("the verdict on each part names the tool, and a failing floor quotes how the figure was taken", () => {
  const m = nicMeasurement(result([hca("mlx5_0", onIb(371.5))]));
  const e: Expectation = { metric: "nic_bw_gbps", text: "nic_bw_gbps: { min: 380 Gb/s }", unit: "Gb/s", min: 380, perComponent: true };
  expect(componentChecks(e, m, [m]).map((c) => c.message)).toEqual([
    "node0 NIC 0 (mlx5_0) [nccl-p2p]: nic_bw_gbps 371.5 Gb/s < 380 Gb/s expected (-2%): 371.5 Gb/s NCCL send/recv, best 375.5, 268435456-byte messages (nccl-p2p, NCCL_IB_HCA==mlx5_0:1: 4 × NET/IB, all GDRDMA on mlx5_0:1, from GPU 0)",
  ]);
});

test("NCCL INFO showing NET/Socket or another HCA is an error naming both, never a figure for the pinned HCA", () => {
  const sockets = { server: child(`${infoLines(socketRun)}\n${timings(9.1)}\n`), client: child(`${infoLines(gdr, "test2")}\n`) };
  const other = { server: child(`${infoLines(gdr, "test1")}\n${timings(371.5)}\n`), client: child(`${infoLines(gdr, "test2")}\n`) };
  const m = nicMeasurement(result([hca("mlx5_0", sockets), hca("mlx5_3", other, 3)]));
  expect(hcaParts(m).map((c) => [c.metrics.nic_bw_gbps, c.unmeasured!.nic_bw_gbps])).toEqual([
    [null, "node0: NCCL INFO: the bytes crossed NET/Socket, not NET/IB on mlx5_0:1 (connections: 14 × P2P/IPC, 2 × NET/Socket)"],
    [
      null,
      "node0: NCCL INFO: NCCL opened mlx5_0:1 (NET/IB : Using [0]mlx5_0:1/IB/SHARP), not mlx5_3:1 alone: the NCCL_IB_HCA pin did not hold; " +
        "node1: NCCL INFO: NCCL opened mlx5_0:1 (NET/IB : Using [0]mlx5_0:1/IB/SHARP), not mlx5_3:1 alone: the NCCL_IB_HCA pin did not hold",
    ],
  ]);
  expect(m.metrics.nic_bw_gbps_min).toBeNull();
  expect(m.unmeasured!.nic_lat_us_max).toStartWith("node0 mlx5_0 port 1 (400 Gb/s, nearest GPU 0) → node1 mlx5_0 (nearest GPU 0): node0: NCCL INFO: the bytes crossed NET/Socket");
});

test("a child that failed, timed out or printed no INFO or timings, and a pair that never started, are null with the reason", () => {
  const why = (p2p: object) => nicMeasurement(result([hca("mlx5_0", p2p)])).components![0]!.unmeasured!.nic_bw_gbps;
  const client = child(infoLines(gdr, "test2"));
  expect(why({ server: child(`${infoLines(gdr, "test1")}\ngpucheck-workload: error: NCCL send/recv failed: NCCL error: remote process exited\n`, 1), client })).toBe(
    "the NCCL send/recv child on node0 exited with code 1: gpucheck-workload: error: NCCL send/recv failed: NCCL error: remote process exited",
  );
  expect(why({ server: { why: "the NCCL send/recv child on node0 for mlx5_0 did not finish within 60 s", command: "…", output: "" }, client })).toBe(
    "the NCCL send/recv child on node0 for mlx5_0 did not finish within 60 s",
  );
  expect(why({ server: child(`${timings(371.5)}\n`), client })).toBe("node0: no NCCL INFO lines in the output, so the HCA the bytes crossed is unknown");
  expect(why({ server: child(infoLines(gdr, "test1")), client })).toBe("the NCCL send/recv child on node0 printed no GPUCHECK_P2P timings");
  expect(why({ why: "the client node node1 has no mlx5_0 (its HCAs: mlx5_3)" })).toBe("the client node node1 has no mlx5_0 (its HCAs: mlx5_3)");
  const m = nicMeasurement(result([hca("mlx5_0", { server: child(infoLines(gdr, "test1")), client })]));
  expect(m.unmeasured!.nic_bw_gbps_min).toBe(
    "node0 mlx5_0 port 1 (400 Gb/s, nearest GPU 0) → node1 mlx5_0 (nearest GPU 0): the NCCL send/recv child on node0 printed no GPUCHECK_P2P timings",
  );
});

test("neither perftest nor NCCL: every figure null with both reasons, no source claimed", () => {
  const why =
    "ib_read_lat, ib_write_bw not found on node0 (install perftest), and NCCL point-to-point cannot stand in: node0: torch 2.4.0 sees no GPU (torch.cuda.is_available() is False)";
  const m = nicMeasurement(
    result([{ device: "mlx5_0", port: 1, rate_gbps: 400, state: "ACTIVE", link_layer: "InfiniBand", gpu_server: null, gpu_client: null, source: null, why }]),
  );
  expect(hcaParts(m)).toEqual([
    { part: { type: "nic", host: "node0", name: "mlx5_0" }, metrics: { nic_bw_gbps: null, nic_lat_us: null }, unmeasured: { nic_bw_gbps: why, nic_lat_us: why } },
  ]);
  expect(m.unmeasured!.nic_bw_gbps_min).toBe(`node0 mlx5_0 port 1 (400 Gb/s, no GPU topology) → node1 mlx5_0 (no GPU topology): ${why}`);
});
