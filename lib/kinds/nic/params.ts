// A nic test's block: which HCAs to pair, the perftest message size, iterations and time limit,
// the NCCL send/recv message size and count used without perftest, and the size of the TCP stream
// between the two ranks.
import { duration, positiveInt, size, strictMap } from "../../core/fields.ts";
import { given } from "../given.ts";
import { hcaList } from "../inventory/params.ts";

export interface NicParams {
  /** compute HCAs (NCCL_IB_HCA names, DEVICE or DEVICE:PORT); absent = every port under /sys/class/infiniband */
  hcas?: string[];
  /** ib_write_bw message size in bytes */
  size: number;
  /** ib_write_bw and ib_read_lat iterations */
  iters: number;
  /** ms each perftest client may run */
  timeout: number;
  /** bytes of the TCP stream */
  tcpSize: number;
  /** without perftest: bytes per NCCL send/recv message */
  p2pSize: number;
  /** without perftest: timed NCCL send/recv messages per HCA */
  p2pIters: number;
}

// 1 MiB × 5000 writes: ~0.1 s at a 400G NDR port's ~48 GB/s, 4 s on a port fallen to 10 Gb/s —
// long beside a connection's set-up, short enough for 8 HCAs in turn
// 256 MiB × 20 NCCL messages: NCCL's send/recv reaches its plateau well below 256 MiB (nccl-tests
// sendrecv_perf curves), and 20 of them are ~0.1 s at 400 Gb/s, as the nvlink kind times its pairs
export const NIC_DEFAULTS: NicParams = { size: 1024 ** 2, iters: 5000, timeout: 60_000, tcpSize: 256 * 1024 ** 2, p2pSize: 256 * 1024 ** 2, p2pIters: 20 };

export const nicBlock = () =>
  strictMap({
    hcas: hcaList().optional(),
    size: size().optional(),
    iters: positiveInt().optional(),
    timeout: duration().optional(),
    tcpSize: size().optional(),
    p2pSize: size().optional(),
    p2pIters: positiveInt().optional(),
  });

export const resolveNic = (written: Partial<NicParams> | undefined): NicParams => ({ ...NIC_DEFAULTS, ...given(written ?? {}) });

/** the workload command */
export const nicArgs = (p: NicParams | undefined): string[] =>
  p
    ? [
        "nic",
        ...(p.hcas ? ["--hcas", p.hcas.join(",")] : []),
        "--size",
        String(p.size),
        "--iters",
        String(p.iters),
        "--timeout",
        String(p.timeout / 1000),
        "--tcp-bytes",
        String(p.tcpSize),
        "--p2p-size",
        String(p.p2pSize),
        "--p2p-iters",
        String(p.p2pIters),
      ]
    : ["nic"];
