// The nic command's GPUCHECK_RESULT line (workload/gpucheck_workload/kinds/nic.py) as lib/kinds/nic/parse.ts
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
  const child = z
    .object({
      why: z.string().optional().describe("why this child left no usable output: a timeout, it could not start"),
      command: z.string().optional(),
      rc: z.number().int().optional().describe("the child's exit code"),
      output: z
        .string()
        .optional()
        .describe("the child's stdout and stderr: GPUCHECK_NCCL_INFO lines (NCCL_DEBUG=INFO) and, on rank 0, GPUCHECK_P2P with the timings, read by lib/kinds/nic/parse-p2p.ts"),
    })
    .describe("one node's child process (workload/gpucheck_workload/nic_p2p.py)");
  const p2p = z
    .object({
      source: z.literal("nccl-p2p"),
      env: z.object({ NCCL_IB_HCA: z.string(), NCCL_NET: z.string() }).describe('the variables that pinned both children to this HCA ("=mlx5_0:1", "IB")'),
      why: z.string().optional().describe("why neither child started (the client node lacks the HCA)"),
      server: child.optional().describe("rank 0's child: receives and times"),
      client: child.optional().describe("rank 1's child: sends"),
    })
    .describe("NCCL send/recv between the two nodes pinned to this HCA, one child process per node");
  const gpu = z.number().int().nonnegative().nullable().describe("nvidia-smi index of the GPU nearest this HCA (nvidia-smi topo -m); null: no topology, host memory used");
  const hca = z.object({
    device: z.string().describe("the HCA (mlx5_0)"),
    port: z.union([z.number().int(), z.string()]),
    rate_gbps: z.number().nullable().optional().describe("the port's rate on the server node (sysfs)"),
    state: z.string().nullable().optional(),
    link_layer: z.string().nullable().optional(),
    gpu_server: gpu,
    gpu_client: gpu,
    source: z
      .enum(["perftest", "nccl-p2p"])
      .nullable()
      .optional()
      .describe("the tool that measured this HCA: perftest, else NCCL send/recv pinned to it (nccl-p2p); null: neither could run (why says)"),
    why: z.string().optional().describe("source null: why neither perftest nor NCCL point-to-point could measure this HCA"),
    perftest: z.string().optional().describe("source nccl-p2p: why perftest was not used (which tool is missing where)"),
    bw: run.optional().describe("source perftest: ib_write_bw --report_gbits"),
    lat: run.optional().describe("source perftest: ib_read_lat"),
    p2p: p2p.optional().describe("source nccl-p2p: the two children's runs"),
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
