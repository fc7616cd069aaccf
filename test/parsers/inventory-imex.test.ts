// The IMEX domain on a multi-node NVLink rack (inventory.nvlinkDomain: rack): the workload parses the
// one public `nvidia-imex-ctl -N` capture found (18 GB200 nodes READY, AWS PCS user guide: source on
// the fixture's first line) and the inventory counts what is not READY, not Connected or not UP. No
// public capture of a failing domain was found: those cases use the report's documented values (its
// own legend: UNAVAILABLE, N = Never Connected, DEGRADED) in the captured layout, stated as such.
import { describe, expect, test } from "bun:test";
import { inventoryMetrics } from "../../lib/kinds/inventory/parse.ts";
import type { NodeInventory } from "../../lib/core/types.ts";
import type { ImexDomain } from "../../lib/kinds/inventory/imex.ts";
import { node } from "./_inventory.ts";

const H100 = "nvidia-smi-q-h100-8gpu-565.57.01.txt";
const IMEX = "imex-ctl-N-18node-ready-aws-pcs-570.172.txt";
let parsed: NodeInventory | undefined;
const captured = () => structuredClone((parsed ??= node({ q: H100, imex: IMEX })));
const rack = { nvlinkDomain: "rack" as const };

describe("imex_not_ready", () => {
  test("the captured domain: 18 nodes READY, every pair C, Domain State UP → 0", () => {
    const inv = captured();
    expect((inv.imex as ImexDomain).nodes).toHaveLength(18);
    const c = inventoryMetrics(inv, rack);
    expect(c.metrics.imex_not_ready).toBe(0);
    expect(c.details.imex_not_ready).toBeUndefined();
  });

  test("a node not READY, pairs never connected and a DEGRADED domain are each counted and named (documented values)", () => {
    const inv = captured();
    const d = inv.imex as ImexDomain;
    d.nodes[3]!.status = "UNAVAILABLE";
    d.not_connected = [
      [0, 3, "N"],
      [3, 0, "!M!"],
    ];
    d.domain_state = "DEGRADED";
    const c = inventoryMetrics(inv, rack);
    expect(c.metrics.imex_not_ready).toBe(4);
    expect(c.details.imex_not_ready).toBe(
      "nvidia-imex-ctl -N: node #3 (172.31.49.228) UNAVAILABLE, not READY; node #0 (172.31.48.81) → node #3 (172.31.49.228): N (Never Connected); node #3 (172.31.49.228) → node #0 (172.31.48.81): !M! (node map mismatch); Domain State DEGRADED, not UP",
    );
  });

  test("no daemon to ask is unmeasured with the node's reason, never 0", () => {
    const inv = captured();
    inv.imex = null;
    inv.unmeasured = { imex: "nvidia-imex-ctl not found (is the nvidia-imex daemon installed and running?)" };
    const c = inventoryMetrics(inv, rack);
    expect(c.metrics.imex_not_ready).toBeNull();
    expect(c.unmeasured.imex_not_ready).toBe("the IMEX domain could not be read: nvidia-imex-ctl not found (is the nvidia-imex daemon installed and running?)");
  });

  test("an HGX node (nvlinkDomain node, the default) is not judged on IMEX", () => {
    const inv = captured();
    inv.imex = null;
    expect("imex_not_ready" in inventoryMetrics(inv).metrics).toBe(false);
  });
});
