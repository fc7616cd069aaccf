// lib/kinds/nic/parse.ts: the nic command's GPUCHECK_RESULT → per-HCA-pair components, the worst pair
// named, the TCP stream labelled; every gap null with its reason. The clients' outputs are the real
// captures in test/fixtures/perftest/ (README there), placed in the workload's result shape.
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { nicMeasurement } from "../../lib/kinds/nic/parse.ts";

const fixture = (name: string) => readFileSync(join(import.meta.dir, "../fixtures/perftest", name), "utf8");
const bwH100 = fixture("ib_send_bw-report-gbits-h100-nebius-ib.txt");
const lat = fixture("ib_read_lat-roce-cx5-spiderpool.txt");
// the same capture with a lower figure: the weak pair the outlier rule must name
const bwWeak = bwH100.replace("357.12             353.53", "201.10             198.40");

const TCP = { interface: "eth0", local_addr: "10.0.0.2", peer_addr: "10.0.0.1", bytes: 268435456, seconds: 0.25, gbyte_s: 1.07, rtt_us: 31.5, pings: 200 };
const run = (output: string, rc = 0) => ({ command: "ib_write_bw …", rc, output });
const hca = (device: string, bw: object, l: object, gpu: number | null = 0) => ({
  device,
  port: 1,
  rate_gbps: 400,
  state: "ACTIVE",
  link_layer: "InfiniBand",
  gpu_server: gpu,
  gpu_client: gpu,
  bw,
  lat: l,
});
const result = (hcas: object[], extra: object = {}) =>
  `GPUCHECK_RESULT ${JSON.stringify({ world_size: 2, torch: "2.4.0", server: { host: "node0", addr: "10.0.0.1" }, client: { host: "node1" }, no_ib: null, size: 1048576, iters: 5000, hcas, tcp: TCP, ...extra })}\n`;

test("every HCA pair is a component; the worst bandwidth and latency name host, device, port, rate and nearest GPU", () => {
  const m = nicMeasurement(result([hca("mlx5_0", run(bwH100), run(lat)), hca("mlx5_3", run(bwWeak), run(lat), 3)]));
  expect(m.metrics.nic_bw_gbps_min).toBe(198.4);
  expect(m.details!.nic_bw_gbps_min).toBe(
    "node0 mlx5_3 port 1 (400 Gb/s, nearest GPU 3) → node1 mlx5_3 (nearest GPU 3): 198.4 Gb/s average, peak 201.1, 65536-byte writes, GPUDirect from GPU 3; " +
      "node0 mlx5_0 port 1 (400 Gb/s, nearest GPU 0) → node1 mlx5_0 (nearest GPU 0): 353.5 Gb/s average, peak 357.1, 65536-byte writes, GPUDirect from GPU 0",
  );
  expect(m.metrics.nic_lat_us_max).toBe(6.74);
  expect(m.components!.map((c) => [c.part, c.metrics])).toEqual([
    [
      { type: "nic", host: "node0", name: "mlx5_0", index: 0 },
      { nic_bw_gbps: 353.53, nic_lat_us: 6.74 },
    ],
    [
      { type: "nic", host: "node0", name: "mlx5_3", index: 3 },
      { nic_bw_gbps: 198.4, nic_lat_us: 6.74 },
    ],
    // the route the ranks' TCP stream took, a part of its own beside the HCA pairs
    [
      { type: "nic", host: "node1", name: "TCP eth0 → node0" },
      { nic_tcp_route_gbyte_s: 1.07, nic_tcp_route_rtt_us: 31.5 },
    ],
  ]);
  expect(m.details!.nic_tcp_gbyte_s).toBe("TCP over eth0 (node1 10.0.0.2 → node0 10.0.0.1): the rendezvous route, not the RDMA NICs; 268435456 bytes in 0.250 s");
});

test("a server that never listened, a timeout, a failed client: null with each reason, never the others' minimum", () => {
  const never = { why: "the ib_write_bw server on node0 for mlx5_1 did not listen on port 18517 within 15 s" };
  const late = { why: "the ib_read_lat client on node1 to node0 for mlx5_1 did not finish within 60 s", command: "ib_read_lat …" };
  const refused = run(`${bwH100.split("\n").slice(0, 15).join("\n")}\nCouldn't connect to 10.0.0.1:18515\n`, 1);
  const m = nicMeasurement(result([hca("mlx5_0", run(bwH100), run(lat)), hca("mlx5_1", never, late, null), hca("mlx5_2", refused, run(lat))]));
  expect(m.metrics.nic_bw_gbps_min).toBeNull();
  expect(m.unmeasured!.nic_bw_gbps_min).toBe(
    "node0 mlx5_1 port 1 (400 Gb/s, no GPU topology) → node1 mlx5_1 (no GPU topology): the ib_write_bw server on node0 for mlx5_1 did not listen on port 18517 within 15 s; " +
      'node0 mlx5_2 port 1 (400 Gb/s, nearest GPU 0) → node1 mlx5_2 (nearest GPU 0): exit code 1; no ib_write_bw result table (the "#bytes #iterations BW peak[Gb/sec] BW average[Gb/sec]" header) in its output; it said: Couldn\'t connect to 10.0.0.1:18515',
  );
  expect(m.unmeasured!.nic_lat_us_max).toBe(
    "node0 mlx5_1 port 1 (400 Gb/s, no GPU topology) → node1 mlx5_1 (no GPU topology): the ib_read_lat client on node1 to node0 for mlx5_1 did not finish within 60 s",
  );
  expect(m.components![1]!.unmeasured).toEqual({ nic_bw_gbps: never.why, nic_lat_us: late.why });
  // a table followed by a failing exit is not a figure either
  const tail = nicMeasurement(result([hca("mlx5_0", run(bwH100, 2), run(lat))]));
  expect(tail.unmeasured!.nic_bw_gbps_min).toBe("node0 mlx5_0 port 1 (400 Gb/s, nearest GPU 0) → node1 mlx5_0 (nearest GPU 0): ib_write_bw exited with code 2 after its table");
});

test("no InfiniBand device: the perftest metrics are null with the reason, the TCP stream is labelled as a CPU figure", () => {
  const m = nicMeasurement(
    result([], { no_ib: "no InfiniBand device (/sys/class/infiniband is empty)", tcp: { ...TCP, interface: "lo", local_addr: "127.0.0.1", peer_addr: "127.0.0.1" } }),
  );
  expect(m.metrics).toMatchObject({ nic_bw_gbps_min: null, nic_lat_us_max: null, nic_tcp_gbyte_s: 1.07, nic_tcp_rtt_us: 31.5 });
  expect(m.unmeasured).toEqual({
    nic_bw_gbps_min: "no InfiniBand device (/sys/class/infiniband is empty)",
    nic_lat_us_max: "no InfiniBand device (/sys/class/infiniband is empty)",
  });
  expect(m.details!.nic_tcp_rtt_us).toBe("device: cpu — TCP over lo (node1 127.0.0.1 → node0 127.0.0.1), no RDMA NIC crossed; median of 200 1-byte round trips");
  // on CPU the route is the one part measured: an outlier rule over the fleet judges it between pairs
  expect(m.components).toEqual([
    {
      part: { type: "nic", host: "node1", name: "TCP lo → node0" },
      metrics: { nic_tcp_route_gbyte_s: 1.07, nic_tcp_route_rtt_us: 31.5 },
      details: {
        nic_tcp_route_gbyte_s: "device: cpu — TCP over lo (node1 127.0.0.1 → node0 127.0.0.1), no RDMA NIC crossed; 268435456 bytes in 0.250 s",
        nic_tcp_route_rtt_us: "device: cpu — TCP over lo (node1 127.0.0.1 → node0 127.0.0.1), no RDMA NIC crossed; median of 200 1-byte round trips",
      },
    },
  ]);
});

test("a TCP stream that failed, and outputs with no result, say so", () => {
  const m = nicMeasurement(result([], { no_ib: "x", tcp: { why: "TCP stream between the ranks failed on rank 1: [Errno 111] Connection refused" } }));
  expect(m.unmeasured!.nic_tcp_gbyte_s).toBe("TCP stream between the ranks failed on rank 1: [Errno 111] Connection refused");
  expect(m.unmeasured!.nic_tcp_rtt_us).toBe(m.unmeasured!.nic_tcp_gbyte_s!);
  expect(() => nicMeasurement("Traceback …\n")).toThrow("no GPUCHECK_RESULT line in rank 0's output: the nic run did not finish");
  expect(() => nicMeasurement('GPUCHECK_RESULT {"world_size":2}\n')).toThrow("the nic result has no hcas list");
});
