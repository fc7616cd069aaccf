// The evidence bundle of a failed or errored node (issue 28 item 7): what a vendor case asks for,
// bounded by `maxBytes`, packed as evidence/<node>.tar.gz in the run directory. The node's state (kernel
// log, nvidia-smi, ibstat, iblinkinfo, dcgmi, nvidia-bug-report) is collected on the node itself by the
// workload's `evidence` command (workload/gpucheck_workload/evidence.py), one GPUCHECK_EVIDENCE line
// an item; the test's logs are already here. What could not be collected is listed with why (a tool not
// installed, a command that failed, a node that could not be reached, the size limit).
import { readFileSync } from "node:fs";
import { basename, join } from "node:path";
import { taggedLines } from "../parsers/protocol.ts";
import { type TarEntry, tarGz } from "./ustar.ts";
import type { EvidenceBundle } from "../core/types.ts";

/** The default limit: 64 MiB, room for nvidia-bug-report.log.gz of an 8-GPU node (tens of MB) and the logs. */
export const DEFAULT_EVIDENCE_BYTES = 64 * 1024 * 1024;

export type { EvidenceBundle } from "../core/types.ts";

/** One item as the node sent it: its bytes (absent when it was larger than the limit), or why there are none. */
export interface NodeItem {
  item: string;
  bytes?: number;
  data?: Uint8Array;
  missing?: string;
}

/** The GPUCHECK_EVIDENCE lines of the node's output, in order; a line gpucheck cannot read is listed as missing. */
export function nodeItems(texts: string[]): NodeItem[] {
  return texts
    .flatMap((t) => taggedLines(t, "EVIDENCE"))
    .map((v, i) => {
      const item = typeof v.item === "string" && v.item && !v.item.includes("/") ? v.item : `item-${i + 1}`;
      if (typeof v.missing === "string") return { item, missing: v.missing };
      const bytes = typeof v.bytes === "number" ? v.bytes : undefined;
      if (typeof v.data !== "string") return bytes === undefined ? { item, missing: "the node sent neither its data nor why" } : { item, bytes };
      return { item, bytes, data: Buffer.from(v.data, "base64") };
    });
}

/** One node's bundle from what its node sent (`problem`: why the node's part is short or absent) and the test's logs here. */
export function packBundle(opts: { node: string; outDir: string; items: NodeItem[]; problem?: string; logs: string[]; maxBytes: number }): {
  bundle: EvidenceBundle;
  archive: Uint8Array;
} {
  const entries: TarEntry[] = [];
  const missing: EvidenceBundle["missing"] = [];
  let used = 0;
  const over = (name: string, size: number) =>
    missing.push({ item: name, why: `over the evidence limit (${size} bytes with ${used} already collected, maxBytes ${opts.maxBytes})` });
  const add = (name: string, data: Uint8Array) => {
    // the gzip only shrinks it: counting raw bytes (and a tar header each) keeps the archive under the limit
    if (used + data.length + 1024 > opts.maxBytes) return over(name, data.length);
    used += data.length + 1024;
    entries.push({ name, data });
  };
  for (const it of opts.items) {
    if (it.missing !== undefined) missing.push({ item: it.item, why: it.missing });
    else if (it.data) add(it.item, it.data);
    else over(it.item, it.bytes ?? 0);
  }
  if (opts.problem) missing.push({ item: opts.items.length ? "the rest of the node's state" : "the node's state", why: opts.problem });
  for (const [i, log] of opts.logs.entries()) {
    // as in the run directory (logs/<test>/<unit>/rank-N.log: two tests' rank 0 do not collide), unless
    // ustar's 100-byte name limit needs it shorter
    const name = log.length <= 100 ? log : `logs/${i + 1}-${basename(log)}`.slice(0, 100);
    try {
      add(name, readFileSync(join(opts.outDir, log)));
    } catch (e) {
      missing.push({ item: name, why: (e as Error).message });
    }
  }
  const listing = [...entries.map((e) => `collected ${e.name} (${e.data.length} bytes)`), ...missing.map((m) => `missing ${m.item}: ${m.why}`)].join("\n");
  entries.unshift({ name: "MANIFEST.txt", data: new TextEncoder().encode(`${listing}\n`) });
  const archive = tarGz(entries);
  const file = `evidence/${opts.node}.tar.gz`;
  return { bundle: { node: opts.node, file, bytes: archive.length, collected: entries.map((e) => e.name), missing }, archive };
}
