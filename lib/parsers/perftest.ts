// perftest's client output (ib_write_bw, ib_send_bw, ib_read_lat …) → its result row, read by the
// header's column names: the same table is printed with tabs or spaces, after warnings
// (libibverbs, "Conflicting CPU frequency"), and with 4 or 5 bandwidth columns or 4 or 9 latency
// columns depending on the perftest version (test/fixtures/perftest/README.md lists the captures).
import { ParseError } from "../core/errors.ts";

export interface PerftestRow {
  /** the table's columns as perftest names them ("#bytes", "BW average[Gb/sec]", "t_typical[usec]") */
  columns: string[];
  /** the last result row (the largest message size of a sweep), by column name */
  values: Record<string, number>;
  /** the test as the banner names it ("RDMA_Write BW Test"), the device and the link layer */
  test: string | null;
  device: string | null;
  linkType: string | null;
}

export interface PerftestBw extends PerftestRow {
  bytes: number;
  /** BW average in Gb/s (perftest's --report_gbits: 1 Gb = 1e9 bits) */
  avgGbps: number;
  /** BW peak in Gb/s; perftest prints 0.00 when a duration run (-D) did not measure it */
  peakGbps: number | null;
}

export interface PerftestLat extends PerftestRow {
  bytes: number;
  /** the median (t_typical) where printed, else t_avg (perftest before 4.x prints only t_avg and t_stdev) */
  typicalUs: number;
  avgUs: number;
  maxUs: number | null;
  p99Us: number | null;
}

// a column name: "#bytes", "t_min[usec]", "BW peak[Gb/sec]", "99.9% percentile[usec]", "MsgRate[Mpps]"
const COLUMN = /#\w+|(?:\d+(?:\.\d+)?% percentile|BW \w+|[A-Za-z_]+)\[[^\]]+\]/g;
// perftest's own failure lines: the reason a run printed no table
const COMPLAINT = /couldn't|could not|unable to|failed|error|no such|not found|unrecognized|timed out|timeout/i;

const clip = (s: string) => (s.length > 160 ? `${s.slice(0, 157)}...` : s);

function banner(text: string, name: RegExp): string | null {
  for (const line of text.split("\n")) {
    const m = name.exec(line);
    if (m) return m[1]!.trim();
  }
  return null;
}

/** What perftest said went wrong, for a message: its complaint lines, or the last line it printed. */
export function complaint(text: string): string {
  const lines = text
    .split("\n")
    .map((l) => l.trim())
    .filter(Boolean);
  if (lines.length === 0) return "it printed nothing";
  const said = lines.filter((l) => COMPLAINT.test(l) && !l.startsWith("Conflicting CPU frequency") && !l.startsWith("libibverbs: Warning"));
  return said.length ? `it said: ${said.slice(0, 3).map(clip).join(" | ")}` : `its last line: ${clip(lines.at(-1)!)}`;
}

function table(text: string, tool: string, header: RegExp, expected: string): PerftestRow {
  const lines = text.split("\n");
  const at = lines.findIndex((l) => header.test(l));
  if (at < 0) throw new ParseError(`no ${tool} result table (the "${expected}" header) in its output; ${complaint(text)}`);
  const columns = lines[at]!.match(COLUMN) ?? [];
  let row: string | undefined;
  for (const line of lines.slice(at + 1)) {
    const t = line.trim();
    if (/^-{10,}$/.test(t)) break;
    // a result row starts with the message size; warnings perftest interleaves do not
    if (/^\d+\s/.test(t)) row = t;
  }
  if (row === undefined) throw new ParseError(`the ${tool} result table has a header but no result row: the output was cut short after "${clip(lines[at]!.trim())}"`);
  const cells = row.split(/\s+/);
  const numbers = cells.map(Number);
  if (cells.length !== columns.length || numbers.some((n) => !Number.isFinite(n))) {
    throw new ParseError(`the ${tool} result row "${clip(row)}" has ${cells.length} cells, expected ${columns.length} numbers (${columns.join(", ")})`);
  }
  return {
    columns,
    values: Object.fromEntries(columns.map((c, i) => [c, numbers[i]!])),
    test: banner(text, /^\s*((?:RDMA_\w+|Send|Atomic[\w ]*?)(?: Post List)? (?:BW|Latency) Test)\s*$/),
    device: banner(text, /Device\s*:\s*(\S+)/),
    linkType: banner(text, /Link type\s*:\s*(\S+)/),
  };
}

/** A bandwidth client's output (ib_write_bw, ib_send_bw, ib_read_bw run with --report_gbits). */
export function parsePerftestBw(text: string, tool = "ib_write_bw"): PerftestBw {
  const t = table(text, tool, /#bytes\s+#iterations\s+BW peak\[/, "#bytes #iterations BW peak[Gb/sec] BW average[Gb/sec]");
  const avg = t.columns.find((c) => c.startsWith("BW average["));
  if (avg !== "BW average[Gb/sec]") throw new ParseError(`the ${tool} table reports ${avg ?? "no BW average column"}, not BW average[Gb/sec]: run it with --report_gbits`);
  const peak = t.values["BW peak[Gb/sec]"] ?? 0;
  return { ...t, bytes: t.values["#bytes"]!, avgGbps: t.values[avg]!, peakGbps: peak > 0 ? peak : null };
}

/** A latency client's output (ib_read_lat, ib_write_lat, ib_send_lat). */
export function parsePerftestLat(text: string, tool = "ib_read_lat"): PerftestLat {
  const t = table(text, tool, /#bytes\s+#iterations\s+t_/, "#bytes #iterations t_min[usec] … t_typical[usec] t_avg[usec]");
  const v = t.values;
  const avg = v["t_avg[usec]"];
  if (avg === undefined) throw new ParseError(`the ${tool} table has no t_avg[usec] column (columns: ${t.columns.join(", ")})`);
  return { ...t, bytes: v["#bytes"]!, typicalUs: v["t_typical[usec]"] ?? avg, avgUs: avg, maxUs: v["t_max[usec]"] ?? null, p99Us: v["99% percentile[usec]"] ?? null };
}
