// `smpquery pkeys <lid> <port>` (infiniband-diags) → the PKeys a port holds, and the check that every
// compute HCA port holds the same partitions. Layout (64 entries, 8 a line; 0x0000 is an empty slot):
//      0: 0xffff 0x8001 0x0000 0x0000 0x0000 0x0000 0x0000 0x0000
//      ...
//   64 pkeys capacity for this port
// The top bit of a PKey is the membership (1 full, 0 limited); the partition is the low 15 bits, which is
// what opensm's partitions.conf names (Default=0x7fff holds 0xffff on a full member). Ports are compared
// by partition, and the message prints the entries as the table holds them.
// Fixtures: test/fixtures/fabric/*.smpquery-pkeys (README.md there).
import { ParseError } from "../../core/errors.ts";

const ROW = /^\s*(\d+):((?:\s+0x[0-9a-fA-F]{4})+)\s*$/;
const CAPACITY = /^(\d+) pkeys capacity for this port/m;

/** The non-empty PKey entries of one port's table, in table order. */
export function parseSmpqueryPkeys(text: string, source = "smpquery pkeys"): number[] {
  if (!CAPACITY.test(text)) throw new ParseError(`${source}: no "N pkeys capacity for this port" line; smpquery did not read the port's PKey table (run it by hand to see why)`);
  const keys: number[] = [];
  for (const line of text.split("\n")) {
    const row = ROW.exec(line);
    if (!row) continue;
    for (const k of row[2].trim().split(/\s+/)) if (Number(k) !== 0) keys.push(Number(k));
  }
  return keys;
}

const hex = (k: number) => `0x${k.toString(16).padStart(4, "0")}`;
const partition = (k: number) => k & 0x7fff;
const setKey = (keys: number[]) => [...new Set(keys.map(partition))].sort((a, b) => a - b).join(",");

export interface PkeyFinding {
  kind: "pkey";
  parts: string[];
  message: string;
}

/**
 * Every port whose partitions differ from the expectation: the suite's `pkeys` when declared, else the
 * set most ports hold. Without a declaration and without a strict majority there is no reference, so
 * every port is named (one finding each) rather than guessing which side is right.
 */
export function comparePkeys(ports: Map<string, number[]>, declared?: number[]): PkeyFinding[] {
  let expected: string | null = null;
  let source: string;
  if (declared) {
    expected = setKey(declared);
    source = `the declared PKeys [${declared.map(hex).join(", ")}]`;
  } else {
    const count = new Map<string, number>();
    for (const keys of ports.values()) count.set(setKey(keys), (count.get(setKey(keys)) ?? 0) + 1);
    const [top, n] = [...count.entries()].sort((a, b) => b[1] - a[1])[0] ?? ["", 0];
    if (n * 2 > ports.size) expected = top;
    source = expected === null ? "no partition set is held by most compute ports to compare with" : `what ${n} of ${ports.size} compute ports hold`;
  }
  const findings: PkeyFinding[] = [];
  for (const [port, keys] of [...ports.entries()].sort((a, b) => a[0].localeCompare(b[0]))) {
    const have = setKey(keys);
    if (have === expected) continue;
    const shown = keys.length ? keys.map(hex).join(", ") : "no PKey";
    const want =
      expected === null
        ? `; ${source}`
        : `, expected partitions [${expected
            .split(",")
            .map((k) => hex(Number(k)))
            .join(", ")}] (${source})`;
    findings.push({
      kind: "pkey",
      parts: [port],
      message: `${port} holds PKeys [${shown}]${want}; add the port's GUID to the partition in the subnet manager's partitions.conf (or remove it from the one it should not be in) and let the SM sweep`,
    });
  }
  return findings;
}
