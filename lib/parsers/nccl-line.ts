// Reading one line of an nccl-tests log: the launcher's prefix, what a '#' line says, failures.
// Everything not recognised here is noise (NCCL INFO/WARN, MPI banners, X11, GPUCHECK_ lines).
import { type Layout, layoutFromHeader } from "./nccl-layout.ts";

/**
 * Launcher prefixes, with the rank they name: srun --label " 0: ", mpirun --tag-output
 * "[1,0]<stdout>:", and gpucheck's own "[host rank 0] " / "[rank 0] " on collected tails.
 */
const SRUN = /^ *(\d+): /;
const MPIRUN = /^\[\d+,(\d+)\]<std(?:out|err)>: ?/;
const GPUCHECK = /^\[(?:[^\]\s]+ )?rank (\d+)\] /;

/** Returns the rank label ("" without a prefix); the text after the prefix is `line.slice(cut)`. */
export function launcherPrefix(line: string): { label: string; cut: number } {
  const c = line.charCodeAt(0);
  let m: RegExpExecArray | null = null;
  if (c === 91 /* [ */) m = MPIRUN.exec(line) ?? GPUCHECK.exec(line);
  else if (c === 32 || (c >= 48 && c <= 57)) m = SRUN.exec(line);
  return m ? { label: m[1]!, cut: m[0].length } : NO_PREFIX;
}
const NO_PREFIX = { label: "", cut: 0 };

export type Meta =
  | { kind: "preamble" }
  | { kind: "collective"; name: string; starting: boolean }
  | { kind: "rank" }
  | { kind: "header"; layout: Layout }
  | { kind: "outOfBounds"; value: number; failed: boolean }
  | { kind: "avg"; value: number | null; failed: boolean }
  | { kind: "comment" };

const FOOTER = /^#?\s*(Out of bounds values|Avg bus bandwidth)\s*:\s*(\S+)\s*(FAILED)?/;
const PREAMBLE = /^#?\s*(?:nThread \d|nccl-tests version |Using devices|NCCL Tests compiled with)/;
const COLLECTIVE = /^#\s*Collective test (starting|concluded):\s*(\S+)/;
const RANK = /^#\s*Rank\s+\d+\s/;
const COMMENT: Meta = { kind: "comment" };
const PREAMBLE_META: Meta = { kind: "preamble" };
const RANK_META: Meta = { kind: "rank" };

/**
 * What a '#' line (or a v1.x summary line, which had no '#') says; null when it is neither.
 * `text` starts after the launcher prefix.
 */
export function readMeta(text: string): Meta | null {
  const hash = text.charCodeAt(0) === 35;
  if (!hash && !/^\s*(?:Out of|Avg bus|nThread )/.test(text)) return null;
  if (RANK.test(text)) return RANK_META;
  const footer = FOOTER.exec(text);
  if (footer) {
    const value = Number(footer[2]);
    const failed = footer[3] !== undefined;
    if (footer[1] === "Avg bus bandwidth") return { kind: "avg", value: Number.isFinite(value) ? value : null, failed };
    return Number.isInteger(value) ? { kind: "outOfBounds", value, failed } : COMMENT;
  }
  if (PREAMBLE.test(text)) return PREAMBLE_META;
  const coll = COLLECTIVE.exec(text);
  if (coll) return { kind: "collective", name: collectiveName(coll[2]!), starting: coll[1] === "starting" };
  if (!hash) return null;
  const words = text.slice(1).trim().split(/\s+/);
  if (words[0] === "size" || words[0] === "bytes") {
    const layout = layoutFromHeader(words);
    if (layout) return { kind: "header", layout };
  }
  return COMMENT;
}

/** "./build/all_reduce_perf_mpi" → "all_reduce" */
export function collectiveName(program: string): string {
  return program.replace(/^.*[/\\]/, "").replace(/_perf(?:_mpi)?$/, "");
}

export interface Failure {
  /** a root cause (NCCL/CUDA failure, timeout, bad GPU count) rather than a TESTCHECK unwinding frame */
  root: boolean;
  text: string;
}

const FAILURE = /^Test (?:NCCL failure|CUDA failure|timeout \(|failure )/;

/**
 * A failure nccl-tests printed anywhere in `text` (it may be glued to a half-printed row), without
 * the "<host>: " or " .. <host> pid <pid>: " in front: hostnames differ per node and say nothing
 * about the failure, and when glued to a row they cannot be told apart from its last number.
 */
export function findFailure(text: string): Failure | null {
  let at = text.indexOf(": Test ");
  while (at >= 0) {
    const rest = text.slice(at + 2);
    if (FAILURE.test(rest)) return { root: !rest.startsWith("Test failure "), text: rest.trimEnd() };
    at = text.indexOf(": Test ", at + 1);
  }
  const gpus = text.indexOf("Invalid number of GPUs:");
  return gpus >= 0 ? { root: true, text: text.slice(gpus).trimEnd() } : null;
}
