// The nic command's GPUCHECK_RESULT line (workload/gpucheck_workload/nic.py) as lib/parsers/nic.ts
// reads it: the contract between the workload and the binary.
import { z } from "zod";

// built on first use: a command that never checks a workload result does not pay for its zod objects
export const nicResult = z.lazy(() => {
  const run = z
    .object({
      why: z.string().optional().describe("why there is no output to read: perftest missing, the server never listened, a timeout, no such HCA on the client"),
      command: z.string().optional().describe("the client's command line"),
      rc: z.number().int().optional().describe("the client's exit code"),
      output: z.string().optional().describe("the client's stdout and stderr, read by lib/parsers/perftest.ts"),
    })
    .describe("one perftest client run (rank 1) against rank 0's server");
  const gpu = z.number().int().nonnegative().nullable().describe("nvidia-smi index of the GPU nearest this HCA (nvidia-smi topo -m); null: no topology, host memory used");
  const hca = z.object({
    device: z.string().describe("the HCA (mlx5_0)"),
    port: z.union([z.number().int(), z.string()]),
    rate_gbps: z.number().nullable().optional().describe("the port's rate on the server node (sysfs)"),
    state: z.string().nullable().optional(),
    link_layer: z.string().nullable().optional(),
    gpu_server: gpu,
    gpu_client: gpu,
    bw: run.describe("ib_write_bw --report_gbits"),
    lat: run.describe("ib_read_lat"),
  });
  const tcp = z.union([
    z.object({ why: z.string().describe("why the TCP stream was not measured") }),
    z.object({
      interface: z.string().describe('the interface the client reached the server over ("lo", "eth0"), or the address when unknown'),
      local_addr: z.string(),
      peer_addr: z.string(),
      bytes: z.number().int().positive(),
      seconds: z.number().positive(),
      gbyte_s: z.number().positive().describe("GB/s, 1 GB = 1e9 bytes"),
      rtt_us: z.number().positive().describe("median 1-byte round trip, µs"),
      pings: z.number().int().positive(),
    }),
  ]);
  return z.object({
    world_size: z.literal(2),
    torch: z.string(),
    server: z.object({ host: z.string(), addr: z.string().describe("rank 0's rendezvous address, which the clients connect to") }),
    client: z.object({ host: z.string() }),
    no_ib: z.string().nullable().describe("set when the server node has no InfiniBand port: the reason every perftest metric is null"),
    size: z.number().int().positive(),
    iters: z.number().int().positive(),
    hcas: z.array(hca),
    tcp,
  });
});
