// `gpucheck list` shows the membw and pcie kinds with their metrics, as the registry describes them.
import { expect, test } from "bun:test";
import { gpucheck, tempDir } from "./cli.ts";

test("list: the membw and pcie kinds with their metrics", () => {
  const r = gpucheck(["list"], { cwd: tempDir("membw-pcie-list"), timeoutMs: 60_000 });
  expect(r.status).toBe(0);
  expect(r.stdout).toContain("\nMetrics of kind membw:\n  membw_copy_gbps_min      GB/s       higher is better  device-to-device copy (dst.copy_(src), 2 × size bytes a call)");
  expect(r.stdout).toContain("\n  membw_triad_median_min   GB/s       higher is better  triad (torch.add(b, c, alpha=s, out=a), 3 × size bytes a call)");
  expect(r.stdout).toContain(
    "\nMetrics of kind pcie:\n  pcie_h2d_gbps_min        GB/s       higher is better  host-to-device copy with pinned host memory, each GPU alone on its node",
  );
  expect(r.stdout).toContain(
    "\n  pcie_bidir_all_gbps_min  GB/s       higher is better  both directions at once (two streams) with pinned host memory, every GPU of the node at once",
  );
  expect(r.stdout).toContain(
    "\n  pcie_link_degraded       count      lower is better   GPUs (nvidia-smi -q GPU Link Info, read while their copies ran, against its Max: the lower of the GPU's and the host's) and the compute HCAs named in `hcas`",
  );
  expect(r.stdout).toContain("\n  pcie_replays             count      lower is better   PCIe replays the GPUs counted during the test");
}, 60_000);
