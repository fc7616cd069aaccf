// infiniband-diags' tools run where gpucheck runs (the jump host, or under a wrapper such as
// "ssh sm-node"): the reading behind `gpucheck fabric` and a suite's `kind: fabric` test. A tool that
// cannot run, or exits with a status that is not a reading, is a FabricToolError: never a pass.
// The tools run as child processes gpucheck waits on, not synchronously: a Ctrl-C or the test's
// timeout stops the one running (an ssh to an SM node that does not answer), and the progress line and
// the run's other timers keep going while a large fabric is read.
import { spawn } from "node:child_process";
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

/** The most output one tool may print: iblinkinfo of a 10,000-port fabric is a few MiB. */
const MAX_OUTPUT = 256 * 1024 * 1024;
/** How long a stopped tool has to end after SIGTERM (ssh closes its connection) before SIGKILL. */
const KILL_GRACE_MS = 2000;

interface ToolRun {
  status: number | null;
  stdout: string;
  stderr: string;
  /** why it did not finish on its own: its limit, the caller's stop, too much output, or a spawn error */
  stopped?: "limit" | "signal" | "output";
  error?: NodeJS.ErrnoException;
}

function runTool(argv: string[], timeoutMs: number, signal: AbortSignal | undefined): Promise<ToolRun> {
  return new Promise((done) => {
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let bytes = 0;
    let stopped: ToolRun["stopped"];
    let spawnError: NodeJS.ErrnoException | undefined;
    const child = spawn(argv[0]!, argv.slice(1), { stdio: ["ignore", "pipe", "pipe"] });
    let killer: ReturnType<typeof setTimeout> | undefined;
    const stop = (why: NonNullable<ToolRun["stopped"]>) => {
      if (stopped || child.exitCode !== null || child.signalCode !== null) return;
      stopped = why;
      child.kill("SIGTERM");
      killer = setTimeout(() => child.kill("SIGKILL"), KILL_GRACE_MS);
    };
    const limit = setTimeout(() => stop("limit"), timeoutMs);
    const onAbort = () => stop("signal");
    signal?.addEventListener("abort", onAbort, { once: true });
    const take = (into: Buffer[]) => (b: Buffer) => {
      bytes += b.length;
      if (bytes > MAX_OUTPUT) return stop("output");
      into.push(b);
    };
    child.stdout.on("data", take(out));
    child.stderr.on("data", take(err));
    child.on("error", (e) => {
      spawnError = e;
    });
    // "close": the process has ended and its pipes are drained (a spawn that failed closes too)
    child.on("close", (status) => {
      clearTimeout(limit);
      clearTimeout(killer);
      signal?.removeEventListener("abort", onAbort);
      done({
        status,
        stdout: Buffer.concat(out).toString("utf8"),
        stderr: Buffer.concat(err).toString("utf8"),
        ...(stopped && { stopped }),
        ...(spawnError && { error: spawnError }),
      });
    });
    if (signal?.aborted) onAbort();
  });
}

/** `ok`: the exit statuses that mean the tool read the fabric (ibqueryerrors exits 1 when it found errors). */
export async function runFabricTool(via: string | undefined, argv: string[], ok: number[] = [0], { timeoutMs = 300_000, signal }: FabricToolOptions = {}): Promise<string> {
  const full = underVia(via, argv);
  const shown = full.join(" ");
  const r = await runTool(full, timeoutMs, signal);
  if (r.error) {
    const missing = r.error.code === "ENOENT";
    throw new FabricToolError(
      missing
        ? `${full[0]} not found while reading the fabric with "${shown}"; install infiniband-diags on this node (Debian/Ubuntu: apt-get install infiniband-diags) or point --via at a node that has it`
        : `"${shown}" failed while reading the fabric: ${r.error.message}`,
    );
  }
  if (r.stopped === "signal") throw new FabricToolError(`"${shown}" was stopped while reading the fabric`);
  if (r.stopped === "limit")
    throw new FabricToolError(
      `"${shown}" did not finish within ${Math.round(timeoutMs / 1000)} s while reading the fabric and was stopped; run it by hand on a node with the subnet manager's view to see where it waits`,
    );
  if (r.stopped === "output")
    throw new FabricToolError(`"${shown}" printed more than ${MAX_OUTPUT / 1024 / 1024} MiB while reading the fabric and was stopped; run it by hand to see what it prints`);
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
  const worker = async () => {
    while (next < cas.length && !signal.aborted) {
      const i = next++;
      const p = cas[i]!;
      try {
        tables[i] = { node: p.node, port: p.port, lid: p.lid, text: await runFabricTool(via, ["smpquery", "pkeys", String(p.lid), String(p.port)], [0], { ...opts, signal }) };
      } catch (e) {
        stop.abort();
        throw e;
      }
    }
  };
  const results = await Promise.allSettled(Array.from({ length: Math.min(PKEY_QUERIES_AT_ONCE, cas.length) }, worker));
  // the failure that stopped the others, not one of the stops it caused
  const failed = results.flatMap((r) => (r.status === "rejected" ? [r.reason as Error] : []));
  const first = failed.find((e) => !/ was stopped while reading the fabric$/.test(e.message)) ?? failed[0];
  if (first) throw first;
  // stopped before a query began: the tables are not all read
  if (signal.aborted) throw new FabricToolError("the PKey tables were not all read: the reading was stopped");
  return tables;
}
