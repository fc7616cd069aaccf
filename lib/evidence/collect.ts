// The evidence bundle of a failed or errored node (issue 28 item 7): what a vendor case asks for,
// bounded by `maxBytes`, packed as evidence/<node>.tar.gz in the run directory. Each item is a command
// run with a timeout, or the test's logs; what could not be collected is listed with why (a tool not
// installed, a kernel log not readable, the size limit reached). Collected on this machine, so only
// for the local platform; on the others the listing says so.
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { basename, join } from "node:path";
import { type TarEntry, tarGz } from "./ustar.ts";
import type { EvidenceBundle } from "../core/types.ts";

/** The default limit: 64 MiB, room for nvidia-bug-report.log.gz of an 8-GPU node (tens of MB) and the logs. */
export const DEFAULT_EVIDENCE_BYTES = 64 * 1024 * 1024;

export type { EvidenceBundle } from "../core/types.ts";

interface Item {
  name: string;
  argv: string[];
  timeoutS: number;
}

/** The commands, in the order they are worth the space; the kernel log around the test from its start and end. */
function items(since: string, until: string): Item[] {
  const t = (iso: string) => iso.replace("T", " ").replace(/\.\d+Z$|Z$/, "");
  return [
    { name: "kernel-log.txt", argv: ["journalctl", "-k", "--no-pager", "--utc", "--since", t(since), "--until", t(until)], timeoutS: 30 },
    { name: "nvidia-smi-q.txt", argv: ["nvidia-smi", "-q"], timeoutS: 60 },
    { name: "nvidia-smi-topo-m.txt", argv: ["nvidia-smi", "topo", "-m"], timeoutS: 30 },
    { name: "ibstat.txt", argv: ["ibstat"], timeoutS: 30 },
    { name: "iblinkinfo.txt", argv: ["iblinkinfo"], timeoutS: 60 },
    { name: "dcgmi-discovery.txt", argv: ["dcgmi", "discovery", "-l"], timeoutS: 30 },
    { name: "nvidia-bug-report.txt", argv: ["nvidia-bug-report.sh", "--safe-mode", "--output-file", "/dev/stdout"], timeoutS: 300 },
  ];
}

function which(cmd: string, path: string): boolean {
  return path.split(":").some((d) => d && spawnSync("test", ["-x", join(d, cmd)]).status === 0);
}

/** Collect one node's bundle; `logs` are the test's log files on this machine. */
export function collectLocal(opts: { node: string; outDir: string; since: string; until: string; logs: string[]; maxBytes: number; env?: NodeJS.ProcessEnv }): {
  bundle: EvidenceBundle;
  archive: Uint8Array | null;
} {
  const env = opts.env ?? process.env;
  const entries: TarEntry[] = [];
  const missing: EvidenceBundle["missing"] = [];
  let used = 0;
  const add = (name: string, data: Uint8Array) => {
    // the gzip only shrinks it: counting raw bytes keeps the archive under the limit
    if (used + data.length + 1024 > opts.maxBytes) {
      missing.push({ item: name, why: `over the evidence limit (${data.length} bytes with ${used} already collected, maxBytes ${opts.maxBytes})` });
      return;
    }
    used += data.length + 1024;
    entries.push({ name, data });
  };
  for (const it of items(opts.since, opts.until)) {
    if (!which(it.argv[0]!, env.PATH ?? "")) {
      missing.push({ item: it.name, why: `${it.argv[0]} is not installed on ${opts.node}` });
      continue;
    }
    const r = spawnSync(it.argv[0]!, it.argv.slice(1), { env, timeout: it.timeoutS * 1000, maxBuffer: opts.maxBytes });
    if (r.error || r.status !== 0) {
      const why = r.error
        ? r.error.message
        : `exited ${r.status ?? r.signal}: ${
            String(r.stderr ?? "")
              .trim()
              .split("\n")
              .slice(-1)[0] ?? ""
          }`;
      missing.push({ item: it.name, why: `${it.argv.join(" ")} ${why}` });
      continue;
    }
    add(it.name, r.stdout);
  }
  for (const log of opts.logs) {
    try {
      add(`logs/${basename(log)}`, readFileSync(join(opts.outDir, log)));
    } catch (e) {
      missing.push({ item: `logs/${basename(log)}`, why: (e as Error).message });
    }
  }
  const listing = [...entries.map((e) => `collected ${e.name} (${e.data.length} bytes)`), ...missing.map((m) => `missing ${m.item}: ${m.why}`)].join("\n");
  entries.unshift({ name: "MANIFEST.txt", data: new TextEncoder().encode(`${listing}\n`) });
  const archive = tarGz(entries);
  const file = `evidence/${opts.node}.tar.gz`;
  return { bundle: { node: opts.node, file, bytes: archive.length, collected: entries.map((e) => e.name), missing }, archive };
}
