// infiniband-diags' tools run where gpucheck runs (the jump host, or under a wrapper such as
// "ssh sm-node"): the reading behind `gpucheck fabric` and a suite's `kind: fabric` test. A tool that
// cannot run, or exits with a status that is not a reading, is a FabricToolError: never a pass.
// The tools run as child processes gpucheck waits on (lib/core/proc.ts), not synchronously: a Ctrl-C or
// the test's timeout stops the one running and what it started (an ssh to an SM node that does not
// answer), and the progress line and the run's other timers keep going while a large fabric is read.
import { capture } from "../core/proc.ts";
import type { LinkInfoPort } from "../kinds/fabric/iblinkinfo.ts";
import { IBQUERYERRORS, underVia } from "../kinds/fabric/params.ts";

export { IBLINKINFO } from "../kinds/fabric/params.ts";

export class FabricToolError extends Error {}

export interface FabricToolOptions {
  /** each tool's own limit; 5 min unless said */
  timeoutMs?: number;
  /** a Ctrl-C or the test's timeout: the tool is stopped and the reading given up */
  signal?: AbortSignal;
}

/** The output kept of one tool: iblinkinfo of a 10,000-port fabric is a few MiB. More loses its head, which no parser reads as a pass. */
const MAX_OUTPUT = 256 * 1024 * 1024;

/** `ok`: the exit statuses that mean the tool read the fabric (ibqueryerrors exits 1 when it found errors). */
export async function runFabricTool(via: string | undefined, argv: string[], ok: number[] = [0], { timeoutMs = 300_000, signal }: FabricToolOptions = {}): Promise<string> {
  const full = underVia(via, argv);
  const shown = full.join(" ");
  const r = await capture(full, { signal, timeoutMs, keep: MAX_OUTPUT });
  if (r.spawnError) {
    const missing = r.spawnError === `${full[0]}: command not found`;
    throw new FabricToolError(
      missing
        ? `${full[0]} not found while reading the fabric with "${shown}"; install infiniband-diags on this node (Debian/Ubuntu: apt-get install infiniband-diags) or point --via at a node that has it`
        : `"${shown}" failed while reading the fabric: ${r.spawnError}`,
    );
  }
  if (r.killed && signal?.aborted) throw new FabricToolError(`"${shown}" was stopped while reading the fabric`);
  if (r.killed)
    throw new FabricToolError(
      `"${shown}" did not finish within ${Math.round(timeoutMs / 1000)} s while reading the fabric and was stopped; run it by hand on a node with the subnet manager's view to see where it waits`,
    );
  if (r.code === null || !ok.includes(r.code)) {
    const why =
      (r.stderr || r.stdout)
        .trim()
        .split("\n")
        .filter((l) => l.trim())
        .slice(-1)[0] ?? "no output";
    throw new FabricToolError(`"${shown}" exited ${r.code} while reading the fabric: ${why}; run it by hand on a node with the subnet manager's view`);
  }
  return r.stdout;
}

// infiniband-diags' ibqueryerrors exits 1 when a port's counters are over its thresholds: a reading,
// not a failure (its "## Summary" line, which the parser requires, says the sweep finished)
export const IBQUERYERRORS_OK = [0, 1];

export function readCounters(via: string | undefined, opts?: FabricToolOptions): Promise<string> {
  return runFabricTool(via, IBQUERYERRORS, IBQUERYERRORS_OK, opts);
}

/** How many smpquery's run at once: a fabric of 1,000 nodes has 8,000 compute ports, one query each. */
export const PKEY_QUERIES_AT_ONCE = 8;

/** The PKey table of every HCA port that iblinkinfo found with a LID (compute ports are the CAs): smpquery's text by port. */
export async function readPkeyTables(
  via: string | undefined,
  ports: LinkInfoPort[],
  opts: FabricToolOptions = {},
): Promise<Array<{ node: string; port: number; lid: number; text: string }>> {
  const cas = ports.filter((x) => x.nodeType === "CA" && x.lid > 0);
  const tables: Array<{ node: string; port: number; lid: number; text: string }> = new Array(cas.length);
  // one failure stops the others: the reading is given up as a whole, as one tool's failure is
  const stop = new AbortController();
  const signal = opts.signal ? AbortSignal.any([opts.signal, stop.signal]) : stop.signal;
  let next = 0;
  // the first failure is the one that stopped the others (theirs come after, as stops)
  let failure: unknown;
  const worker = async () => {
    while (next < cas.length && !signal.aborted) {
      const i = next++;
      const p = cas[i]!;
      try {
        tables[i] = { node: p.node, port: p.port, lid: p.lid, text: await runFabricTool(via, ["smpquery", "pkeys", String(p.lid), String(p.port)], [0], { ...opts, signal }) };
      } catch (e) {
        failure ??= e;
        stop.abort();
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(PKEY_QUERIES_AT_ONCE, cas.length) }, worker));
  if (failure) throw failure;
  // stopped before a query began: the tables are not all read
  if (signal.aborted) throw new FabricToolError("the PKey tables were not all read: the reading was stopped");
  return tables;
}
