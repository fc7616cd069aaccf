// A nic-loopback test's block: which HCAs, the ib_write_bw message size (Azure's 8 MiB) and how
// long the clients may run.
import { duration, size, strictMap } from "../../core/fields.ts";
import { given } from "../given.ts";
import { hcaList } from "../inventory/params.ts";

export interface NicLoopbackParams {
  /** compute HCAs (DEVICE or DEVICE:PORT); absent = every port under /sys/class/infiniband */
  hcas?: string[];
  /** ib_write_bw message size in bytes */
  size: number;
  /** ms the clients may run */
  timeout: number;
}

// 8 MiB: Azure's MESSAGE_SIZE=8388608 in check_ib_bw_gdr (customTests/azure_ib_write_bw_gdr.nhc),
// the method its 380 Gb/s floor was set with; perftest's default 5000 iterations (Azure passes no -n)
// are 42 GB, about 0.9 s at 380 Gb/s
export const NIC_LOOPBACK_DEFAULTS: NicLoopbackParams = { size: 8 * 1024 ** 2, timeout: 60_000 };

export const nicLoopbackBlock = () => strictMap({ hcas: hcaList().optional(), size: size().optional(), timeout: duration().optional() });

export const resolveNicLoopback = (written: Partial<NicLoopbackParams> | undefined): NicLoopbackParams => ({ ...NIC_LOOPBACK_DEFAULTS, ...given(written ?? {}) });

/** the workload command */
export const nicLoopbackArgs = (p: NicLoopbackParams | undefined): string[] =>
  p ? ["nic-loopback", ...(p.hcas ? ["--hcas", p.hcas.join(",")] : []), "--size", String(p.size), "--timeout", String(p.timeout / 1000)] : ["nic-loopback"];
