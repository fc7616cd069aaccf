// Each kind's workload result as zod reads it (lib/kinds/<kind>/result.ts): the contract between the
// Python workload and this binary, exported as JSON Schema (lib/kinds/reference.ts, schema/). Kept
// apart from the kinds themselves so that loading the kinds, as `validate` and `plan` do, loads no
// zod (BENCHMARKS.md, "Start-up: issue 12 item 10").
import type { z } from "zod";
import { burnResult } from "./burn/result.ts";
import { ncclResult } from "./collective/result.ts";
import { dcgmResult } from "./dcgm/result.ts";
import { fabricResult } from "./fabric/result.ts";
import { gemmResult } from "./gemm/result.ts";
import { inventoryResult } from "./inventory/result.ts";
import type { KindName } from "./mod.ts";
import { membwResult } from "./membw/result.ts";
import { nicResult } from "./nic/result.ts";
import { nicLoopbackResult } from "./nic-loopback/result.ts";
import { nvlinkResult } from "./nvlink/result.ts";
import { pcieResult } from "./pcie/result.ts";
import { storageResult } from "./storage/result.ts";
import { trainResult } from "./train/result.ts";

/** the shape of each kind's result as its parser reads it */
export const RESULTS: Record<KindName, z.ZodType> = {
  collective: ncclResult,
  train: trainResult,
  inventory: inventoryResult,
  gemm: gemmResult,
  membw: membwResult,
  pcie: pcieResult,
  nvlink: nvlinkResult,
  dcgm: dcgmResult,
  burn: burnResult,
  nic: nicResult,
  storage: storageResult,
  "nic-loopback": nicLoopbackResult,
  fabric: fabricResult,
};
