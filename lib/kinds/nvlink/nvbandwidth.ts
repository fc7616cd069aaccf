// NVIDIA nvbandwidth's text output → one matrix per testcase ("Running device_to_device_memcpy_read_ce."
// then "memcpy CE GPU(row) -> GPU(column) bandwidth (GB/s)", the column indices, one row per device,
// "SUM <testcase> <total>"), and the check Azure's check_gpu_bw runs on the peer matrix: every
// measured cell against a per-pair floor, each cell below it named by its two GPUs
// (azurehpc-health-checks customTests/azure_gpu_bandwidth.nhc: device_to_device_memcpy_read_ce, 335
// GB/s on ND H100 v5 and ND H200 v5). A cell printed N/A, and the 0.00 older versions print on the
// diagonal, is a pair the testcase did not measure: null, never a figure (test/fixtures/nvbandwidth/).
import { ParseError } from "../../core/errors.ts";
import type { Measurement } from "../../core/types.ts";

export interface NvbandwidthMatrix {
  /** "device_to_device_memcpy_read_ce"; null when the output lost its "Running" line */
  testcase: string | null;
  /** "CE" or "SM" */
  engine: string;
  /** the header's arrow: "->" row copies to column, "<-" column to row, "<->" both at once */
  arrow: "->" | "<-" | "<->";
  rowKind: "CPU" | "GPU";
  columnKind: "CPU" | "GPU";
  columns: number[];
  /** row index → GB/s per column; null where the pair was not measured */
  rows: Map<number, Array<number | null>>;
  sum: number | null;
}

export interface Nvbandwidth {
  version: string | null;
  matrices: NvbandwidthMatrix[];
  /** testcases nvbandwidth waived, with its reason ("Test requires accessible peer pairs") */
  waived: Array<{ testcase: string; reason: string }>;
}

const HEADER = /^memcpy (CE|SM) (CPU|GPU)\(row\) (<->|->|<-) (CPU|GPU)\(column\) bandwidth \(GB\/s\)\s*$/;

export function parseNvbandwidth(text: string): Nvbandwidth {
  const lines = text.split("\n").map((l) => l.replace(/\s+$/, ""));
  const out: Nvbandwidth = { version: /nvbandwidth Version: (\S+)/.exec(text)?.[1] ?? null, matrices: [], waived: [] };
  let running: string | null = null;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const run = /^Running (\w+)\.$/.exec(line);
    if (run) {
      running = run[1]!;
      continue;
    }
    const waived = /^WAIVED (\w+)/.exec(line.trim());
    if (waived) {
      const reason = /Reason:\s*(.*)/.exec(lines[i + 1] ?? "")?.[1] ?? "nvbandwidth gave no reason";
      out.waived.push({ testcase: waived[1]!, reason });
      continue;
    }
    const h = HEADER.exec(line.trim());
    if (!h) continue;
    const columns = (lines[i + 1] ?? "").trim().split(/\s+/).map(Number);
    if (columns.length === 0 || columns.some((c) => !Number.isInteger(c)))
      throw new ParseError(`nvbandwidth's matrix "${line.trim()}" has no column indices under it: "${(lines[i + 1] ?? "").trim()}"`);
    const m: NvbandwidthMatrix = {
      testcase: running,
      engine: h[1]!,
      rowKind: h[2] as "CPU" | "GPU",
      arrow: h[3] as NvbandwidthMatrix["arrow"],
      columnKind: h[4] as "CPU" | "GPU",
      columns,
      rows: new Map(),
      sum: null,
    };
    let j = i + 2;
    for (; j < lines.length && /^\s*\d+\s/.test(lines[j]!); j++) {
      const [index, ...cells] = lines[j]!.trim().split(/\s+/);
      if (cells.length !== columns.length) throw new ParseError(`nvbandwidth's row "${lines[j]!.trim()}" has ${cells.length} cells for ${columns.length} columns`);
      const row = Number(index);
      m.rows.set(
        row,
        cells.map((c, k) => {
          if (c === "N/A") return null;
          const v = Number(c);
          if (!Number.isFinite(v)) throw new ParseError(`nvbandwidth's row ${row} has "${c}" where a GB/s figure belongs`);
          // a device with itself: older versions print 0.00 there, newer N/A; neither is a measurement
          return m.rowKind === m.columnKind && row === columns[k] ? null : v;
        }),
      );
    }
    for (; j < lines.length && !/^(SUM|Running) /.test(lines[j]!); j++);
    const sum = /^SUM (\w+) (\S+)/.exec(lines[j] ?? "");
    if (sum) {
      m.testcase ??= sum[1]!;
      m.sum = Number(sum[2]);
    }
    out.matrices.push(m);
    running = null;
    i = j;
  }
  return out;
}

export interface PairFigure {
  /** "GPU 0→GPU 3" in the direction the bytes moved */
  pair: string;
  gbps: number;
}

/** Every measured GPU pair of a peer matrix, named in the direction its bytes moved (the header's arrow). */
export function peerPairs(m: NvbandwidthMatrix): PairFigure[] {
  if (m.rowKind !== "GPU" || m.columnKind !== "GPU")
    throw new ParseError(`${m.testcase ?? "this matrix"} is ${m.rowKind}(row) ${m.arrow} ${m.columnKind}(column), not between GPUs`);
  const out: PairFigure[] = [];
  for (const [row, cells] of m.rows) {
    cells.forEach((v, k) => {
      if (v === null) return;
      const col = m.columns[k]!;
      const pair = m.arrow === "<-" ? `GPU ${col}→GPU ${row}` : m.arrow === "->" ? `GPU ${row}→GPU ${col}` : `GPU ${row}↔GPU ${col}`;
      out.push({ pair, gbps: v });
    });
  }
  return out;
}

/** Azure's check_gpu_bw on a peer matrix: each measured pair below `floor` GB/s, lowest first, as "GPU 0→GPU 3: 21.95 GB/s < 335". */
export function pairsBelow(m: NvbandwidthMatrix, floor: number): string[] {
  return peerPairs(m)
    .filter((p) => p.gbps < floor)
    .sort((a, b) => a.gbps - b.gbps)
    .map((p) => `${p.pair}: ${p.gbps} GB/s < ${floor}`);
}

/** nvbandwidth's peer testcases the nvlink kind runs → the metric of the lowest pair and each pair's component metric */
export const NVBANDWIDTH_METRICS = {
  device_to_device_memcpy_read_ce: { testcase: "device_to_device_memcpy_read_ce", min: "nvlink_nvbw_read_gbps_min", pair: "nvlink_nvbw_read_gbps" },
  device_to_device_memcpy_write_ce: { testcase: "device_to_device_memcpy_write_ce", min: "nvlink_nvbw_write_gbps_min", pair: "nvlink_nvbw_write_gbps" },
  device_to_device_bidirectional_memcpy_read_ce: {
    testcase: "device_to_device_bidirectional_memcpy_read_ce",
    min: "nvlink_nvbw_bidir_read_gbps_min",
    pair: "nvlink_nvbw_bidir_read_gbps",
  },
  device_to_device_bidirectional_memcpy_write_ce: {
    testcase: "device_to_device_bidirectional_memcpy_write_ce",
    min: "nvlink_nvbw_bidir_write_gbps_min",
    pair: "nvlink_nvbw_bidir_write_gbps",
  },
} as const;

type Obj = Record<string, unknown>;

/**
 * Each host's nvbandwidth run (the nvlink result's ce[].nvbandwidth) → per testcase the lowest pair
 * over the hosts and every pair as a component of type link ("GPU 0→GPU 3"); a host without a
 * figure (not installed, failed, waived) makes the metric null with its reason.
 */
export function setNvbandwidth(m: Measurement, hosts: Obj[]): void {
  for (const t of Object.values(NVBANDWIDTH_METRICS)) {
    const gaps: string[] = [];
    const rows: Array<{ host: string; p: PairFigure }> = [];
    for (const h of hosts) {
      const host = typeof h.host === "string" ? h.host : "unknown host";
      const run = (h.nvbandwidth && typeof h.nvbandwidth === "object" ? h.nvbandwidth : {}) as Obj;
      const why = typeof h.why === "string" ? h.why : typeof run.why === "string" ? run.why : null;
      if (why) {
        gaps.push(`${host}: ${why}`);
        continue;
      }
      if (typeof run.output !== "string") {
        gaps.push(`${host}: no nvbandwidth run in the result (written by a workload without it)`);
        continue;
      }
      let nv: Nvbandwidth;
      try {
        nv = parseNvbandwidth(run.output);
      } catch (e) {
        if (!(e instanceof ParseError)) throw e;
        gaps.push(`${host}: ${e.message}`);
        continue;
      }
      const waived = nv.waived.find((w) => w.testcase === t.testcase);
      const matrix = nv.matrices.find((x) => x.testcase === t.testcase);
      if (waived) gaps.push(`${host}: nvbandwidth waived ${t.testcase}: ${waived.reason}`);
      else if (!matrix) gaps.push(`${host}: nvbandwidth printed no ${t.testcase} matrix (exit code ${String(run.rc)})`);
      else for (const p of peerPairs(matrix)) rows.push({ host, p });
    }
    for (const { host, p } of rows) {
      m.components!.push({ part: { type: "link", host, name: p.pair }, metrics: { [t.pair]: p.gbps }, source: "nvbandwidth" });
    }
    if (gaps.length || rows.length === 0) {
      m.metrics[t.min] = null;
      m.unmeasured![t.min] = gaps.length ? gaps.join("; ") : "nvbandwidth measured no GPU pair";
      continue;
    }
    const sorted = [...rows].sort((a, b) => a.p.gbps - b.p.gbps);
    m.metrics[t.min] = sorted[0]!.p.gbps;
    m.details![t.min] = `nvbandwidth ${t.testcase}, each ordered pair alone: ${sorted
      .slice(0, 5)
      .map((r) => `${r.host} ${r.p.pair} ${r.p.gbps} GB/s`)
      .join("; ")}${sorted.length > 5 ? `; … ${sorted.length - 5} more pairs up to ${sorted.at(-1)!.p.gbps} GB/s` : ""}`;
  }
}
