// infiniband-diags' tools run where gpucheck runs (the jump host, or under a wrapper such as
// "ssh sm-node"): the reading behind `gpucheck fabric` and a suite's `kind: fabric` test. A tool that
// cannot run, or exits with a status that is not a reading, is a FabricToolError: never a pass.
import { spawnSync } from "node:child_process";
import type { LinkInfoPort } from "../kinds/fabric/iblinkinfo.ts";
import { IBQUERYERRORS, underVia } from "../kinds/fabric/params.ts";

export { IBLINKINFO } from "../kinds/fabric/params.ts";

export class FabricToolError extends Error {}

/** `ok`: the exit statuses that mean the tool read the fabric (ibqueryerrors exits 1 when it found errors). */
export function runFabricTool(via: string | undefined, argv: string[], ok: number[] = [0], timeoutMs = 300_000): string {
  const full = underVia(via, argv);
  const r = spawnSync(full[0], full.slice(1), { encoding: "utf8", maxBuffer: 256 * 1024 * 1024, timeout: timeoutMs });
  const shown = full.join(" ");
  if (r.error) {
    const missing = (r.error as NodeJS.ErrnoException).code === "ENOENT";
    throw new FabricToolError(
      missing
        ? `${full[0]} not found while reading the fabric with "${shown}"; install infiniband-diags on this node (Debian/Ubuntu: apt-get install infiniband-diags) or point --via at a node that has it`
        : `"${shown}" failed while reading the fabric: ${r.error.message}`,
    );
  }
  if (r.status === null || !ok.includes(r.status)) {
    const why =
      (r.stderr || r.stdout)
        .trim()
        .split("\n")
        .filter((l) => l.trim())
        .slice(-1)[0] ?? "no output";
    throw new FabricToolError(`"${shown}" exited ${r.status} while reading the fabric: ${why}; run it by hand on a node with the subnet manager's view`);
  }
  return r.stdout;
}

// infiniband-diags' ibqueryerrors exits 1 when a port's counters are over its thresholds: a reading,
// not a failure (its "## Summary" line, which the parser requires, says the sweep finished)
export const IBQUERYERRORS_OK = [0, 1];

export function readCounters(via: string | undefined, timeoutMs?: number): string {
  return runFabricTool(via, IBQUERYERRORS, IBQUERYERRORS_OK, timeoutMs);
}

/** The PKey table of every HCA port that iblinkinfo found with a LID (compute ports are the CAs): smpquery's text by port. */
export function readPkeyTables(via: string | undefined, ports: LinkInfoPort[], timeoutMs?: number): Array<{ node: string; port: number; lid: number; text: string }> {
  return ports
    .filter((x) => x.nodeType === "CA" && x.lid > 0)
    .map((p) => ({ node: p.node, port: p.port, lid: p.lid, text: runFabricTool(via, ["smpquery", "pkeys", String(p.lid), String(p.port)], [0], timeoutMs) }));
}
