// `gpucheck suite auto` picks the built-in suite from the node's GPUs, on real captures: nvidia-smi -q
// of H100/H200/A100/GH200/H800 nodes, GB200 nvidia-smi -L with GB200 Fabric blocks (sources on the
// first line of each fixture; test/fixtures/suite-auto/README.md).
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { SuiteError } from "../../lib/core/errors.ts";
import { autoSuite, chooseSuite, nodeGpus } from "../../lib/pipeline/suite-auto.ts";

const root = join(import.meta.dir, "..", "..");
const workload = (f: string) => readFileSync(join(root, "workload", "tests", "fixtures", f), "utf8");
const here = (f: string) => readFileSync(join(root, "test", "fixtures", "suite-auto", f), "utf8");
const refusal = (text: string) => {
  try {
    autoSuite(() => text);
  } catch (e) {
    expect(e).toBeInstanceOf(SuiteError);
    return (e as Error).message;
  }
  throw new Error("suite auto chose a suite");
};
// a GB200 tray: its nvidia-smi -L, and each GPU's Fabric block as another GB200 node printed it
const gb200 = (fabric: string) => `${here("nvidia-smi-L-gb200-4gpu.txt")}${fabric.repeat(4)}`;

describe("suite auto on real captures", () => {
  test("8 × H100 SXM (nvidia-smi -q, CliqueId 0: the fabric ends at the node) → h100-8x", () => {
    for (const f of ["nvidia-smi-q-h100-8gpu-565.57.01.txt", "nvidia-smi-q-h100-8gpu-535.161.08-hw-slowdown.txt"]) {
      const gpus = nodeGpus(workload(f));
      expect(gpus.names).toEqual(Array(8).fill("NVIDIA H100 80GB HBM3"));
      expect(chooseSuite(gpus)).toEqual({ suite: "h100-8x", why: "suite auto: h100-8x, for this node's 8 × NVIDIA H100 80GB HBM3 (HGX H100 SXM, NVLink domain node)" });
    }
  });

  test("1 × H100 or H200 → gpu-1x", () => {
    expect(autoSuite(() => workload("nvidia-smi-q-h200-1gpu-550.90.12.txt"))).toEqual({
      suite: "gpu-1x",
      why: "suite auto: gpu-1x, for this node's 1 × NVIDIA H200 (one GPU: gpu-1x's H100 floors, which an H200 clears too)",
    });
    expect(autoSuite(() => workload("nvidia-smi-q-h100-1gpu-590.48.01-load-wide-labels.txt")).suite).toBe("gpu-1x");
  });

  test("a GB200 tray in its rack's NVLink domain (CliqueId 2, a ClusterUUID) → gb200-nvl72", () => {
    const text = gb200(workload("fabric-gb200-unhealthy-dra-626.txt"));
    expect(nodeGpus(text).fabric).toHaveLength(4);
    expect(autoSuite(() => text)).toEqual({
      suite: "gb200-nvl72",
      why: "suite auto: gb200-nvl72, for this node's 4 × NVIDIA GB200 in a multi-node NVLink domain rack (CliqueId 2, ClusterUUID dc6e40c4-d722-4357-9ba6-5291dd461278)",
    });
  });

  test("8 × B200 (the name nvidia-smi and nccl-tests print, nccl-tests #389) → b200-8x", () => {
    expect(chooseSuite({ names: Array(8).fill("NVIDIA B200"), fabric: [] })).toEqual({
      suite: "b200-8x",
      why: "suite auto: b200-8x, for this node's 8 × NVIDIA B200 (HGX B200, NVLink domain node)",
    });
  });
});

describe("suite auto refuses, in one line naming what it found", () => {
  test("a GB200 tray outside any NVLink domain (Azure/azhpc-images #506: CliqueId 0, ClusterUUID all zeros)", () => {
    expect(refusal(gb200(workload("fabric-gb200-insufficient-resources-azhpc-506.txt")))).toBe(
      "gpucheck: suite auto: this node's 4 × NVIDIA GB200 are in no multi-node NVLink domain (CliqueId 0, ClusterUUID 00000000-0000-0000-0000-000000000000): gb200-nvl72 needs the tray in its rack's fabric; check `nvidia-smi -q` Fabric and the rack's fabric manager, or name a suite (gpucheck list) or write one (docs/writing-suites.md)",
    );
    // nvidia-smi -L alone prints no Fabric section
    expect(refusal(here("nvidia-smi-L-gb200-4gpu.txt"))).toContain("are in no multi-node NVLink domain (nvidia-smi printed no Fabric section)");
  });

  test("a GPU no built-in suite is for", () => {
    expect(refusal(workload("nvidia-smi-q-a100-4gpu-555.42.02-ecc-remap-pending.txt"))).toBe(
      "gpucheck: suite auto: no built-in suite for this node's 4 × NVIDIA A100-SXM4-80GB (built-ins: 8 × H100 SXM, 8 × H200, 8 × B200, 1 × H100 or H200, GB200 trays of 4 in an NVL72 rack); name a suite (gpucheck list) or write one (docs/writing-suites.md)",
    );
    expect(refusal(workload("nvidia-smi-q-gh200-1gpu-550.127.05-aggregate-dbe.txt"))).toStartWith(
      "gpucheck: suite auto: no built-in suite for this node's 1 × NVIDIA GH200 480GB (",
    );
    expect(refusal(here("nvidia-smi-L-gb200-1gpu-dra-bats.txt"))).toStartWith("gpucheck: suite auto: this node's 1 × NVIDIA GB200 are in no multi-node NVLink domain");
  });

  test("a rack domain of another product, mixed models, no GPU", () => {
    expect(() => chooseSuite({ names: Array(4).fill("NVIDIA GB300"), fabric: [{ cliqueId: "5", clusterUuid: "dc6e40c4-d722-4357-9ba6-5291dd461278" }] })).toThrow(
      "gpucheck: suite auto: no built-in suite for this node's 4 × NVIDIA GB300 in a multi-node NVLink domain rack (CliqueId 5, ClusterUUID dc6e40c4-d722-4357-9ba6-5291dd461278) (built-ins: 8 × H100 SXM, 8 × H200, 8 × B200, 1 × H100 or H200, GB200 trays of 4 in an NVL72 rack); name a suite (gpucheck list) or write one (docs/writing-suites.md)",
    );
    expect(() => chooseSuite({ names: [...Array(4).fill("NVIDIA H100 80GB HBM3"), ...Array(4).fill("NVIDIA H200")], fabric: [] })).toThrow(
      "gpucheck: suite auto: this node has 4 × NVIDIA H100 80GB HBM3 and 4 × NVIDIA H200: the built-in suites are for one model per node; name a suite (gpucheck list) or write one (docs/writing-suites.md)",
    );
    expect(() => chooseSuite(nodeGpus("No devices were found\n"))).toThrow(
      "gpucheck: suite auto: nvidia-smi lists no GPU on this node: no built-in suite fits; name a suite (gpucheck list) or write one (docs/writing-suites.md)",
    );
  });
});
