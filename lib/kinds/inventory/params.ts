// An inventory test's block: what a node should have beyond thresholds. The inventory metrics count
// against it (lib/kinds/inventory/parse.ts).
import * as z from "../../core/schema.ts";
import { CONFIG_FIELDS } from "./config.ts";
import { BASELINE_FIELDS } from "../../baseline/fields.ts";
import { suggest } from "../../core/did-you-mean.ts";
import { nonNegativeInt, strictMap } from "../../core/fields.ts";
import { show } from "../../core/units.ts";

/** What an inventory test expects a node to have, beyond thresholds. */
export interface InventoryParams {
  /** compute HCAs (NCCL_IB_HCA names); absent = every InfiniBand port counts */
  hcas?: string[];
  /** NVLink links each GPU must have up; absent = from the GPU model (18 for H100/H200 SXM) */
  nvlinksPerGpu?: number;
  /** values every node and GPU must have (driver, power_limit_w, pcie_gen, …) */
  config?: Record<string, string | number>;
  /** "node": the NVLink fabric ends at the node (HGX); "rack": GPUs join a multi-node NVLink domain (GB200 NVL72) */
  nvlinkDomain?: "node" | "rack";
  /** the firmware and software versions every node must run (lib/baseline/fields.ts), from the suite or `gpucheck baseline capture` */
  baseline?: Record<string, string>;
}

export const inventoryBlock = () =>
  strictMap({
    // the compute HCAs, as NCCL_IB_HCA names them; storage and Ethernet ports never count
    hcas: hcaList().optional(),
    nvlinksPerGpu: nonNegativeInt().optional(),
    // values every node and GPU of the run must have (lib/kinds/inventory/config.ts)
    config: pinMap().optional(),
    nvlinkDomain: z.enum(["node", "rack"]).optional(),
    // the versions every node must run: kernel, driver, cuda, vbios, nic_firmware, nic_psid, ofed, nccl, fabric_manager, dcgm
    baseline: baselineMap().optional(),
  });

function baselineMap() {
  return z.unknown().transform((v, ctx) => {
    if (v === null || typeof v !== "object" || Array.isArray(v)) {
      ctx.issues.push({
        code: "custom",
        input: v,
        message: `must be a map of versions every node must run, such as { driver: "550.90.07", nic_firmware: "28.39.1002" }, got ${show(v)}`,
      });
      return z.NEVER;
    }
    const out: Record<string, string> = {};
    for (const [k, value] of Object.entries(v)) {
      if (!Object.hasOwn(BASELINE_FIELDS, k)) {
        ctx.issues.push({ code: "custom", path: [k], params: { at: "key" }, input: k, message: suggest(`unknown baseline field ${show(k)}`, k, Object.keys(BASELINE_FIELDS)) });
      } else if (typeof value === "string" || typeof value === "number") {
        out[k] = String(value);
      } else {
        ctx.issues.push({ code: "custom", path: [k], input: value, message: `must be a version string, got ${show(value)}` });
      }
    }
    return out;
  });
}

const HCA = /^[A-Za-z0-9_.-]+(:\d+)?$/;

/** `[mlx5_0, mlx5_3]` or NCCL_IB_HCA's own `mlx5_0,mlx5_3` (a leading `=` means exact names there too). */
export function hcaList() {
  return z.unknown().transform((v, ctx) => {
    const items =
      typeof v === "string"
        ? v
            .replace(/^=/, "")
            .split(",")
            .map((x) => x.trim())
        : Array.isArray(v)
          ? v
          : null;
    if (!items || items.length === 0) {
      const got = items ? "an empty list" : show(v);
      ctx.issues.push({ code: "custom", input: v, message: `must be a list of HCA names such as [mlx5_0, mlx5_3] or "mlx5_0,mlx5_3", got ${got}` });
      return z.NEVER;
    }
    const bad = items.findIndex((x) => typeof x !== "string" || !HCA.test(x));
    if (bad >= 0) {
      const message = `invalid HCA name ${show(items[bad])}: expected a device name such as mlx5_0, or mlx5_0:1 for one port`;
      ctx.issues.push({ code: "custom", input: items[bad], message, ...(Array.isArray(v) && { path: [bad] }) });
      return z.NEVER;
    }
    return items as string[];
  });
}

function pinMap() {
  return z.unknown().transform((v, ctx) => {
    if (v === null || typeof v !== "object" || Array.isArray(v)) {
      ctx.issues.push({
        code: "custom",
        input: v,
        message: `must be a map of fields to the value every node must have, such as { driver: "550.90.07", power_limit_w: 700 }, got ${show(v)}`,
      });
      return z.NEVER;
    }
    const out: Record<string, string | number> = {};
    for (const [k, value] of Object.entries(v)) {
      if (!Object.hasOwn(CONFIG_FIELDS, k)) {
        ctx.issues.push({ code: "custom", path: [k], params: { at: "key" }, input: k, message: suggest(`unknown config field ${show(k)}`, k, Object.keys(CONFIG_FIELDS)) });
      } else if (typeof value === "string" || typeof value === "number") {
        out[k] = value;
      } else {
        ctx.issues.push({ code: "custom", path: [k], input: value, message: `must be a string or a number, got ${show(value)}` });
      }
    }
    return out;
  });
}
