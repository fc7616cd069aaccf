// The nic-loopback command's GPUCHECK_RESULT line (workload/gpucheck_workload/kinds/nic_loopback.py) as
// lib/kinds/nic-loopback/parse.ts reads it: the contract between the workload and the binary.
import { z } from "zod";

// built on first use: a command that never checks a workload result does not pay for its zod objects
export const nicLoopbackResult = z.lazy(() => {
  const client = z
    .object({
      why: z.string().optional().describe("why the client left no output: a timeout"),
      command: z.string().optional().describe("the client's command line (numactl … ib_write_bw … 127.0.0.1)"),
      rc: z.number().int().optional().describe("the client's exit code"),
      output: z.string().optional().describe("the client's stdout and stderr, read by lib/parsers/perftest.ts"),
    })
    .describe("the ib_write_bw client, on the same node and HCA as its server");
  const hca = z.object({
    device: z.string().describe("the HCA (mlx5_0)"),
    port: z.union([z.number().int(), z.string()]),
    rate_gbps: z.number().nullable().optional().describe("the port's rate (sysfs)"),
    state: z.string().nullable().optional(),
    link_layer: z.string().nullable().optional(),
    port_tcp: z.number().int().describe("ib_write_bw's -p: the TCP port of this HCA's server"),
    gpu: z.number().int().nonnegative().describe("the CUDA ordinal (PCI bus order) given to --use_cuda"),
    gpu_source: z.string().describe("why that GPU: nearest the HCA by nvidia-smi topo -m, or Azure's i-th HCA to GPU i"),
    numa_node: z.number().int().nullable().describe("the HCA's NUMA node numactl pinned both sides to; null: unknown (why says)"),
    why: z.string().optional().describe("why this HCA has no figure: a tool missing, no GPU, no NUMA node, the server never listened"),
    server: z.object({ command: z.string() }).optional(),
    client: client.optional(),
  });
  return z.object({
    host: z.string(),
    size: z.number().int().positive().describe("the message size asked (-s)"),
    no_ib: z.string().nullable().describe("set when the node has no InfiniBand port: the reason the metric is null"),
    hcas: z.array(hca),
  });
});
