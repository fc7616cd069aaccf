// Inventory metrics from real node captures: the Python parsers read the fixtures (as they do on a
// node), the TypeScript side counts. What a node could not read is unmeasured, never 0.
import { describe, expect, test } from "bun:test";
import { checkExpectation } from "../../lib/assess/checks.ts";
import { addFleetConfigFindings, inventoryMeasurement, inventoryMetrics, toInventory } from "../../lib/kinds/inventory/parse.ts";
import type { Expectation, NodeInventory } from "../../lib/core/types.ts";
import type { InventoryParams } from "../../lib/kinds/inventory/params.ts";
import { node } from "./_inventory.ts";

const H100 = "nvidia-smi-q-h100-8gpu-565.57.01.txt";
const NVLINK = "nvlink-s-h100-1gpu-590.48.01-tab-indent.txt";
const IB = "ibstat-h100-cx7-ndr-ib-with-eth-ports-down.txt";
const count = (inv: NodeInventory, params?: InventoryParams) => inventoryMetrics(inv, params);

describe("inventory metrics from real H100 captures", () => {
  test("a healthy HGX H100: 8 GPUs, 18 links each, fabric Completed, 8 NDR ports Active at 400 Gb/s, no ECC", () => {
    const c = count(node({ q: H100, nvlink: NVLINK, ibstat: IB }));
    expect(c.metrics).toMatchObject({
      gpu_count: 8,
      nvlink_inactive: 0,
      fabric_not_ready: 0,
      ecc_uncorrected: 0,
      sram_threshold_exceeded: 0,
      remapped_rows_pending: 0,
      remap_failure: 0,
      ib_ports_active: 8,
      ib_port_rate: 400,
      ecc_disabled: 0,
      mig_enabled: 0,
      persistence_off: 0,
      config_mismatches: 0,
      xid_events: 0,
    });
    // H100 retires no pages (rows are remapped instead): N/A is unmeasured, not 0
    expect(c.unmeasured.retired_pages).toStartWith("retired page counts (A100 and later remap rows instead) are N/A on GPU 0 (00000000:18:00.0, serial 1654423001593)");
  });

  test("the Ethernet ports that are down never count, and never count as up", () => {
    const c = count(node({ q: H100, nvlink: NVLINK, ibstat: IB }), { hcas: ["mlx5_0", "mlx5_2"] });
    expect(c.metrics.ib_ports_active).toBe(1);
    expect(c.details.ib_ports_active).toBe("compute HCA mlx5_2 (link layer Ethernet, not InfiniBand) [compute HCAs mlx5_0,mlx5_2]");
  });

  test("a RoCE node has no InfiniBand compute port", () => {
    const c = count(node({ q: H100, nvlink: NVLINK, ibstat: "ibstat-h100-cx7-roce-2-ports-down.txt" }));
    expect(c.metrics.ib_ports_active).toBe(0);
    expect(c.unmeasured.ib_port_rate).toBe("no Active compute InfiniBand port (all InfiniBand ports)");
  });

  test("nvlink status that could not be read is unmeasured, while the GPUs are still counted", () => {
    const c = count(node({ q: H100, nvlink: null, ibstat: IB }));
    expect(c.metrics.gpu_count).toBe(8);
    expect(c.metrics.nvlink_inactive).toBeNull();
    expect(c.unmeasured.nvlink_inactive).toBe("NVLink status could not be read (nvidia-smi nvlink -s exited 255: Failed to get NVLink status)");
  });

  test("a GPU short of links is named with its bus id, serial and the count", () => {
    const inv = node({ q: H100, nvlink: NVLINK, ibstat: IB });
    (inv.gpus[3]!.nvlinks as unknown[]).splice(0, 2); // as if GPU 3 reported 16 links
    const c = count(inv);
    expect(c.metrics.nvlink_inactive).toBe(2);
    expect(c.details.nvlink_inactive).toBe("GPU 3 (00000000:5D:00.0, serial 1654223056472): 16 of 18 links active");
  });

  test("A100 with a pending row remap; GH200 with a remapped DBE in the lifetime counter only", () => {
    const a100 = count(node({ q: "nvidia-smi-q-a100-4gpu-555.42.02-ecc-remap-pending.txt", nvlink: "nvlink-s-a100-8gpu-space-indent.txt" }));
    expect(a100.metrics).toMatchObject({ remapped_rows_pending: 1, ecc_uncorrected: 0, nvlink_inactive: 0, remapped_rows: 2 });
    expect(a100.details.remapped_rows_pending).toMatch(/^GPU \d \(00000000:9E:00\.0, serial \d+\): row remapping pending \(reset the GPU\)$/);
    const gh200 = count(node({ q: "nvidia-smi-q-gh200-1gpu-550.127.05-aggregate-dbe.txt", nvlink: NVLINK }));
    expect(gh200.metrics).toMatchObject({ ecc_uncorrected: 0, ecc_dram_uncorrected: 0, remapped_rows: 1, remapped_rows_pending: 0 });
  });

  test("ECC disabled: its counters are N/A, so ECC metrics are unmeasured and ecc_disabled counts the GPU", () => {
    const c = count(node({ q: "nvidia-smi-q-i0-h800-525.105.17-throttle-reasons-naming.txt", nvlink: NVLINK }));
    expect(c.metrics.ecc_disabled).toBe(1);
    expect(c.metrics.ecc_uncorrected).toBeNull();
    expect(c.unmeasured.ecc_uncorrected).toMatch(/^volatile uncorrectable ECC counters are N\/A on GPU 0 \(.*\) \(ECC mode Disabled\)$/);
  });

  test("a kernel log that could not be read is unmeasured: the xid check is an error naming why", () => {
    const inv = toInventory({ hostname: "n", gpus: [], xid_events: null, unmeasured: { xid_events: "the kernel log could not be read (dmesg: Operation not permitted)" } });
    const m = inventoryMeasurement(`GPUCHECK_RESULT ${JSON.stringify(inv)}\n`);
    const e: Expectation = { metric: "xid_events", unit: "count", max: 0, text: "{ max: 0 }" };
    const [check] = checkExpectation(e, m, undefined).checks;
    expect(check!.measured).toBeNull();
    expect(check!.message).toBe("xid_events unmeasured: the kernel log could not be read (dmesg: Operation not permitted) (expected ≤ 0)");
  });
});

describe("configuration sanity", () => {
  test("one GPU at another power limit, and the suite's pin on the driver, are named", () => {
    const inv = node({ q: H100, nvlink: NVLINK, ibstat: IB });
    inv.gpus[5]!.power_limit_w = 500;
    const c = count(inv, { config: { driver: "550.90.07" } });
    expect(c.metrics.config_mismatches).toBe(2);
    expect(c.details.config_mismatches).toBe(
      "gpu01 GPU 5 (00000000:AB:00.0, serial 1654323021387): power_limit_w 500 ≠ 700 (7 of 8 GPUs on the node); gpu01: driver 565.57.01 ≠ 550.90.07 (pinned by the suite)",
    );
  });

  test("a pin on a value the node could not read makes the check unmeasured", () => {
    const c = count(node({ q: H100, nvlink: NVLINK, ibstat: IB }), { config: { ofed: "24.10-1.1.4" } });
    expect(c.unmeasured.config_mismatches).toBe("pinned values could not be read: ofed of gpu01");
  });

  test("across nodes: the node on another driver is named against the majority, and its check fails", () => {
    const ms = ["gpu01", "gpu02", "gpu03"].map((h) => inventoryMeasurement(`GPUCHECK_RESULT ${JSON.stringify(node({ q: H100, nvlink: NVLINK, ibstat: IB, hostname: h }))}\n`));
    (ms[1]!.raw as NodeInventory).driver = "535.161.08";
    addFleetConfigFindings(ms);
    expect(ms.map((m) => m.metrics.config_mismatches)).toEqual([0, 1, 0]);
    const e: Expectation = { metric: "config_mismatches", unit: "count", max: 0, text: "{ max: 0 }" };
    expect(checkExpectation(e, ms[1]!, undefined).checks[0]!.message).toBe("config_mismatches 1 > 0 expected (+1): gpu02: driver 535.161.08 ≠ 565.57.01 (2 of 3 nodes)");
  });

  // An idle GPU drops its link to Gen1 to save power. A public capture shows it (an `nvidia-smi -q |
  // grep -A 5 PCI` of a workstation GPU pinned to Gen3, in a benchmark reproduction guide on GitHub,
  // code-search id 3802812743): "PCIe Generation / Max : 3 / Current : 1 / Device Current : 1 /
  // Device Max : 4 / Host Max : 3". The inventory is read while the GPUs idle: its Current is never judged.
  test("pcie_gen and pcie_width judge the slot's capability (Max), never the idle Current", () => {
    const inv = node({ q: H100, nvlink: NVLINK, ibstat: IB });
    inv.gpus[3]!.pcie_gen = 1; // idle, as in the capture above; its Max stays 5
    const healthy = count(inv, { config: { pcie_gen: 5, pcie_width: 16 } });
    expect(healthy.metrics.config_mismatches).toBe(0);
    // a slot that allows only Gen4 (Host Max 4 makes Max 4) is named, against the pin and against the node's other GPUs
    inv.gpus[6]!.pcie_gen_max = 4;
    expect(count(inv, { config: { pcie_gen: 5 } }).details.config_mismatches).toBe("gpu01 GPU 6 (00000000:BA:00.0, serial 1654423003872): pcie_gen 4 ≠ 5 (pinned by the suite)");
    expect(count(inv).details.config_mismatches).toBe("gpu01 GPU 6 (00000000:BA:00.0, serial 1654423003872): pcie_gen 4 ≠ 5 (7 of 8 GPUs on the node)");
  });
});

// GB200 Fabric blocks as quoted in public threads (workload/tests/fixtures/fabric-gb200-*.txt, read by the
// workload's parser in test_node_parsers.py); the values are set on a real HGX capture's GPUs here.
describe("the NVLink fabric: State and Status, Health, and a multi-node domain's clique", () => {
  // one parse of the capture (a Python start); each test gets its own copy to change
  let parsed: NodeInventory | undefined;
  const hgx = () => structuredClone((parsed ??= node({ q: H100, nvlink: NVLINK, ibstat: IB })));
  // a healthy GB200 rack's clique, from leptonai/gpud#1106 (NVML's fabric info on a GB200 node)
  const RACK = { fabric_clique_id: "4026", fabric_cluster_uuid: "9c6f5af3-53bf-49b5-a436-b66766c413c3" };
  const rackNode = () => {
    const inv = hgx();
    for (const g of inv.gpus) Object.assign(g, RACK, { fabric_health_summary: "Healthy", fabric_health_bandwidth: "Full" });
    return inv;
  };

  test("Status Insufficient Resources with State Completed fails, naming the GPU (Azure/azhpc-images#506)", () => {
    const inv = hgx();
    Object.assign(inv.gpus[0]!, { fabric_status: "Insufficient Resources" });
    const c = count(inv);
    expect(c.metrics.fabric_not_ready).toBe(1);
    expect(c.details.fabric_not_ready).toBe("GPU 0 (00000000:18:00.0, serial 1654423001593): Fabric State Completed, Status Insufficient Resources");
  });

  test("Health Summary Unhealthy fails although State and Status say Completed and Success (dra-driver-nvidia-gpu#626)", () => {
    const inv = hgx();
    Object.assign(inv.gpus[2]!, {
      fabric_clique_id: "2",
      fabric_cluster_uuid: "dc6e40c4-d722-4357-9ba6-5291dd461278",
      fabric_health_summary: "Unhealthy",
      fabric_health_bandwidth: "Full",
    });
    const c = count(inv);
    expect(c.metrics.fabric_not_ready).toBe(1);
    expect(c.details.fabric_not_ready).toBe("GPU 2 (00000000:3A:00.0, serial 1654423003947): Fabric Health Summary Unhealthy");
  });

  test("an HGX board's CliqueId 0 and zero ClusterUUID are normal, and fail only where the suite says the domain is a rack", () => {
    expect(count(hgx()).metrics.fabric_not_ready).toBe(0);
    const c = count(hgx(), { nvlinkDomain: "rack" });
    expect(c.metrics.fabric_not_ready).toBe(8);
    expect(c.details.fabric_not_ready).toStartWith("GPU 0 (00000000:18:00.0, serial 1654423001593): Fabric CliqueId 0, ClusterUUID 00000000-0000-0000-0000-000000000000; GPU 1 ");
  });

  test("on a rack, every GPU in one clique passes, and a GPU in another clique is named with the node's", () => {
    expect(count(rackNode(), { nvlinkDomain: "rack" }).metrics.fabric_not_ready).toBe(0);
    const inv = rackNode();
    Object.assign(inv.gpus[5]!, { fabric_clique_id: "2", fabric_cluster_uuid: "dc6e40c4-d722-4357-9ba6-5291dd461278" });
    const c = count(inv, { nvlinkDomain: "rack" });
    expect(c.metrics.fabric_not_ready).toBe(1);
    expect(c.details.fabric_not_ready).toBe(
      "GPU 5 (00000000:AB:00.0, serial 1654323021387): Fabric CliqueId 2, ClusterUUID dc6e40c4-d722-4357-9ba6-5291dd461278, where 7 of the node's 8 GPUs have CliqueId 4026, ClusterUUID 9c6f5af3-53bf-49b5-a436-b66766c413c3",
    );
  });
});
