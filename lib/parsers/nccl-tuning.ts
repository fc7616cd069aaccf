// Which algorithm and protocol NCCL chose for each call, from its TUNING lines, and whether an
// algorithm a suite requires (NVLS, CollNet) served the sizes the test measured. NCCL's init lines
// say only that NVLS was set up; a collective can still run Ring or Tree beside it.
//
// The lines, rank 0 only, one per call (src/enqueue.cc, read tag by tag in github.com/NVIDIA/nccl):
//   2.24+       "AllReduce: 8589934592 Bytes -> Algo NVLS proto SIMPLE channel{Lo..Hi}={0..15}"
//   2.23        "AllReduce: 8589934592 Bytes -> Algo 4 proto 2 time 123.456"
//   2.20–2.22   "524288 Bytes -> Algo 5 proto 2 time 59.553600"  (NVIDIA/nccl #1453)
// Before 2.20 the choice is printed only by TRACE builds ("NCCL TRACE … Bytes -> Algo 1 proto 0"),
// which are read too. Numbers are NCCL's NCCL_ALGO_* / NCCL_PROTO_* (src/include/nccl_common.h).
import type { TransportSummary } from "../core/types.ts";
import { formatBytes } from "../core/quantity.ts";

export type TuningChoice = NonNullable<TransportSummary["tuning"]>[number];

const ALGOS = ["Tree", "Ring", "CollNetDirect", "CollNetChain", "NVLS", "NVLSTree", "PAT"];
const PROTOS = ["LL", "LL128", "Simple"];
const ALGO_NAMES: Record<string, string> = {
  TREE: "Tree",
  RING: "Ring",
  COLLNET_DIRECT: "CollNetDirect",
  COLLNET_CHAIN: "CollNetChain",
  NVLS: "NVLS",
  NVLS_TREE: "NVLSTree",
  PAT: "PAT",
};
const PROTO_NAMES: Record<string, string> = { LL: "LL", LL128: "LL128", SIMPLE: "Simple" };

const LINE = /^(?:(\w+): )?(\d+) Bytes -> Algo (\w+) proto (\w+)\b/;

/** One INFO text (after "NCCL INFO ") → the choice it records, or null when it is not a tuning line. */
export function tuningLine(info: string): TuningChoice | null {
  const m = LINE.exec(info);
  if (!m) return null;
  const name = (text: string, byNumber: string[], byName: Record<string, string>) => (/^\d+$/.test(text) ? byNumber[Number(text)] : byName[text]) ?? `unknown ${text}`;
  return { op: m[1] ?? null, bytes: Number(m[2]), algo: name(m[3]!, ALGOS, ALGO_NAMES), proto: name(m[4]!, PROTOS, PROTO_NAMES) };
}

/**
 * The rule tokens that name an algorithm rather than a connection, and the algorithms of NCCL's that
 * count as each: NVLSTree reduces inside the node through NVLS as NVLS does.
 */
export const ALGORITHM_TOKENS: Record<string, string[]> = {
  NVLS: ["NVLS", "NVLSTree"],
  CollNet: ["CollNetDirect", "CollNetChain"],
};

export interface AlgorithmUse {
  /** the choices NCCL printed for the measured sizes, in size order: "8 GiB NVLS/Simple" */
  chosen: string[];
  /** null when the rule holds, else why not (naming the sizes and what served them) */
  failure: string | null;
  /** set when it cannot be told: then the rule is unmeasured (an error) */
  unmeasured?: string;
}

/**
 * Whether `token` (NVLS, CollNet) served the measured sizes: `require` holds when NCCL chose one of its
 * algorithms for the largest size measured (the one the bandwidth is judged at); `forbid` holds when
 * it chose none of them for any measured size. `sizes` are the measured message sizes in bytes.
 */
export function algorithmUse(s: TransportSummary, token: string, how: "require" | "forbid", sizes: number[]): AlgorithmUse {
  const family = ALGORITHM_TOKENS[token]!;
  const sorted = [...new Set(sizes)].sort((a, b) => a - b);
  const ofSize = (size: number) => (s.tuning ?? []).filter((c) => c.bytes === size || (s.nRanks !== null && c.bytes * s.nRanks === size));
  const chosen = sorted.flatMap((size) => ofSize(size).map((c) => `${formatBytes(size)} ${c.algo}/${c.proto}`));
  if (sorted.length === 0)
    return { chosen, failure: null, unmeasured: `${token} ${how === "require" ? "required" : "forbidden"}, but no message size was measured to show which algorithm NCCL chose` };
  // forbidden and never set up: NCCL cannot have chosen it, whatever the tuning lines say
  if (how === "forbid" && token === "NVLS" && notSetUp(s)) return { chosen, failure: null };
  const largest = sorted[sorted.length - 1]!;
  const missing = how === "require" ? [largest].filter((size) => ofSize(size).length === 0) : sorted.filter((size) => ofSize(size).length === 0);
  if (missing.length) return { chosen, failure: null, unmeasured: noTuning(s, token, how, missing, largest) };
  if (how === "require") {
    const served = ofSize(largest);
    const other = served.filter((c) => !family.includes(c.algo));
    if (other.length === 0) return { chosen, failure: null };
    const setUp = token === "NVLS" && s.transports.NVLS ? `NVLS was set up (${s.nvlsChannels ? `${s.nvlsChannels} channels` : "NVLS init lines"}) but ` : "";
    return {
      chosen,
      failure: `${token} required: ${setUp}NCCL chose ${other.map((c) => `${c.algo}/${c.proto}`).join(", ")} at ${formatBytes(largest)}, the largest size measured (per size: ${chosen.join(", ")})`,
    };
  }
  const used = sorted.filter((size) => ofSize(size).some((c) => family.includes(c.algo)));
  if (used.length === 0) return { chosen, failure: null };
  return { chosen, failure: `${token} forbidden: NCCL chose it at ${used.map(formatBytes).join(", ")} (per size: ${chosen.join(", ")})` };
}

/** The init lines said NVLS is off: not available, or the channel count line without NVLS channels. */
function notSetUp(s: TransportSummary): boolean {
  if (s.transports.NVLS) return false;
  return s.nvlsAvailable === false || s.collChannels !== null;
}

function noTuning(s: TransportSummary, token: string, how: "require" | "forbid", missing: number[], largest: number): string {
  const which = how === "require" ? `${formatBytes(largest)}, the largest size measured` : missing.map(formatBytes).join(", ");
  const old = s.ncclVersion && /^2\.(\d+)\./.test(s.ncclVersion) && Number(/^2\.(\d+)\./.exec(s.ncclVersion)![1]) < 20;
  const why = old
    ? `NCCL ${s.ncclVersion} prints its choice only in TRACE builds; 2.20 and later print it at NCCL_DEBUG_SUBSYS=TUNING`
    : (s.tuning ?? []).length === 0
      ? "NCCL printed no tuning line at all: was NCCL_DEBUG_SUBSYS set without TUNING?"
      : `its tuning lines cover ${[...new Set((s.tuning ?? []).map((c) => formatBytes(c.bytes)))].join(", ")}`;
  const setUp = token === "NVLS" && s.transports.NVLS ? "; the init lines show NVLS set up, which is not NVLS used" : "";
  return `${token} ${how === "require" ? "required" : "forbidden"}, but NCCL printed no tuning line ("… Bytes -> Algo …") for ${which}: which algorithm served it is unknown (${why})${setUp}`;
}
