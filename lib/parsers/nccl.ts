// nccl-tests output → NcclReport, for every collective and every era of the text layout, and for
// the `-J` JSON file. Streaming: a 100 MB log full of NCCL_DEBUG=INFO noise is read a chunk at a
// time and only the table is kept.
//
// Decisions (also in test/fixtures/nccl/README.md):
// - Launcher prefixes (srun --label, mpirun --tag-output) are stripped and name the process: each
//   process's lines are read as their own stream, so interleaved output stays readable.
// - With MPI, rank 0 prints the one report. Without MPI every process prints its own report of its
//   own communicator: the report of the lowest-numbered process (or of unprefixed output) is the one
//   returned, and every other report must also reach its footer for `complete`.
// - A second report in the same stream (two runs in one log) is likewise only checked for completion.
// - `failure` is the first root failure (NCCL/CUDA failure, timeout, bad GPU count) from any process.
//   A bare TESTCHECK frame (" .. host pid N: Test failure common.cu:NNN") only counts when nothing
//   explains it: since v2.17.3 every process prints one on exit after a footer marked FAILED.
// - "# error: <text>" after the footer is not a failure: NCCL records every WARN as its "last error".
import { type Meta, findFailure, launcherPrefix, readMeta } from "./nccl-line.ts";
import { parseNcclJson } from "./nccl-json.ts";
import { applyMeta, applyRowText, type ReportState, type StreamState } from "./nccl-stream.ts";
import { emptyReport, maxBusbw, type NcclReport } from "./nccl-report.ts";

export type { NcclPlacement, NcclReport, NcclRow } from "./nccl-report.ts";
export { ncclMeasurement } from "./nccl-measurement.ts";

export interface NcclParser {
  push(chunk: string): void;
  end(): NcclReport;
  /** lines that were nccl-tests output (preamble, header, rows, footer, failures): 0 means none at all */
  readonly recognizedLines: number;
  /** reports seen (one per process without MPI; more when a log holds several runs) */
  readonly reports: number;
}

/** A line longer than this cannot be nccl-tests output; it is read in parts so memory stays bounded. */
const MAX_LINE = 1 << 20;
const JSON_START = '{"version"';

export function parseNccl(text: string): NcclReport {
  const p = createNcclParser();
  p.push(text);
  return p.end();
}

export function createNcclParser(): NcclParser {
  const streams = new Map<string, StreamState>();
  let mode: "unknown" | "text" | "json" = "unknown";
  let carry = "";
  const jsonParts: string[] = [];
  let recognized = 0;
  let rootFailure: string | null = null;
  let traceFailure: string | null = null;

  function stream(label: string): StreamState {
    let s = streams.get(label);
    if (!s) streams.set(label, (s = { reports: [] }));
    return s;
  }

  function readLine(raw: string): void {
    let text = raw.charCodeAt(raw.length - 1) === 13 ? raw.slice(0, -1) : raw;
    const { label, cut } = launcherPrefix(text);
    if (cut > 0) text = text.slice(cut);
    if (text.charCodeAt(0) === 35 /* # */) {
      const meta = readMeta(text);
      if (meta && meta.kind !== "comment") apply(label, meta);
      return;
    }
    if (text.startsWith("GPUCHECK_")) return;
    let i = 0;
    while (text.charCodeAt(i) === 32 || text.charCodeAt(i) === 9) i++;
    const c = text.charCodeAt(i);
    if (((c >= 48 && c <= 57) || (i > 0 && isPending(label))) && applyRowText(stream(label), text)) {
      recognized++;
    } else if (c === 79 /* O */ || c === 65 /* A */ || c === 110 /* n */) {
      const meta = readMeta(text); // v1.x printed its summary and preamble without '#'
      if (meta && meta.kind !== "comment") return apply(label, meta);
    }
    const failure = findFailure(text);
    if (!failure) return;
    recognized++;
    if (failure.root) rootFailure ??= failure.text;
    else traceFailure ??= failure.text;
  }

  function apply(label: string, meta: Meta): void {
    recognized++;
    applyMeta(stream(label), meta);
  }

  function isPending(label: string): boolean {
    const reports = streams.get(label)?.reports;
    return Boolean(reports?.[reports.length - 1]?.pending);
  }

  function pushText(chunk: string): void {
    // lines are cut from the chunk itself: joining carry + chunk first would copy every chunk
    let nl = chunk.indexOf("\n");
    if (nl < 0) {
      carry += chunk;
    } else {
      readLine(carry + chunk.slice(0, nl));
      let start = nl + 1;
      for (nl = chunk.indexOf("\n", start); nl >= 0; nl = chunk.indexOf("\n", start)) {
        readLine(chunk.slice(start, nl));
        start = nl + 1;
      }
      carry = chunk.slice(start);
    }
    if (carry.length > MAX_LINE) {
      readLine(carry);
      carry = "";
    }
  }

  return {
    push(chunk: string): void {
      if (mode === "unknown") {
        const start = carry + chunk;
        const first = /\S/.exec(start);
        if (!first) {
          // blank lines before anything: keep only the unfinished one (its indentation may matter)
          carry = start.slice(start.lastIndexOf("\n") + 1).slice(-MAX_LINE);
          return;
        }
        // nccl-tests' JSON always opens with its version; a log whose first line is other JSON stays text
        const head = start.slice(first.index, first.index + 64).replace(/\s+/g, "");
        if (head.length < JSON_START.length && JSON_START.startsWith(head) && start.length - first.index < 64) {
          carry = start;
          return;
        }
        mode = head.startsWith(JSON_START) ? "json" : "text";
        chunk = start;
        carry = "";
      }
      if (mode === "json") jsonParts.push(chunk);
      else pushText(chunk);
    },
    end(): NcclReport {
      if (mode === "json") {
        const text = jsonParts.join("");
        jsonParts.length = 0;
        const report = parseNcclJson(text);
        if (report) {
          recognized = 1;
          return report;
        }
        mode = "text"; // not an nccl-tests file after all
        pushText(text);
      }
      if (carry) readLine(carry);
      carry = "";
      return summarise([...streams.entries()], rootFailure, traceFailure);
    },
    get recognizedLines() {
      return recognized;
    },
    get reports() {
      if (mode === "json") return recognized;
      let n = 0;
      for (const s of streams.values()) n += s.reports.length;
      return n;
    },
  };
}

function summarise(entries: Array<[string, StreamState]>, rootFailure: string | null, traceFailure: string | null): NcclReport {
  // unprefixed output first, then processes in rank order
  entries.sort(([a], [b]) => (a === "" ? -1 : b === "" ? 1 : Number(a) - Number(b)));
  const all = entries.flatMap(([, s]) => s.reports);
  const main: ReportState | undefined = entries.find(([, s]) => s.reports.length > 0)?.[1].reports[0];
  if (!main) return { ...emptyReport(), failure: rootFailure ?? traceFailure };
  const explained = all.some((r) => r.footer && r.footerFailed);
  const failure = rootFailure ?? (explained ? null : traceFailure);
  const rows = main.rows ?? [];
  return {
    collective: main.collective,
    ranks: main.rankLines || null,
    rows,
    maxBusbwGBs: maxBusbw(rows),
    avgBusbwGBs: main.footer ? main.avg : null,
    outOfBounds: main.outOfBounds,
    complete: failure === null && all.every((r) => r.footer),
    failure,
  };
}
