// A suite's `kind: fabric` test, run where gpucheck runs (no rank on the nodes): infiniband-diags read
// the fabric through the test's `via`, and the reading (lib/kinds/fabric/reading.ts) is the unit's
// output, kept in the run records so `gpucheck judge` compares again from the same text. The error
// counters are compared with the sweep the run took before its first test (fabric-counters-start.txt;
// in a soak, the soak's). A tool that fails, or a start sweep that could not be taken, is an error.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { FABRIC_COUNTERS_START, type FabricParams } from "../kinds/fabric/params.ts";
import { parseIblinkinfo } from "../kinds/fabric/iblinkinfo.ts";
import type { FabricReading } from "../kinds/fabric/reading.ts";
import type { PlannedTest, TestSpec, UnitRun } from "../core/types.ts";
import { ParseError } from "../core/errors.ts";
import { stopMessage, stopReason } from "../core/stop.ts";
import { ensurePrivateDir, writePrivateFile } from "../core/private-fs.ts";
import { FabricToolError, IBLINKINFO, readCounters, readPkeyTables, runFabricTool } from "./fabric-tools.ts";

export { FABRIC_COUNTERS_START } from "../kinds/fabric/params.ts";

/** Where a fabric test's counters start: the sweep's file and how a moved counter says when it was taken, or why there is none. */
export type FabricStart = { path: string; at: string } | { error: string };

/**
 * Before the first test of a run whose suite holds a fabric test: the counters of the fabric through
 * the first fabric test's `via`, written to `dir`/fabric-counters-start.txt. Never throws: a sweep that
 * could not be taken is the fabric test's error later, said with why.
 */
export async function takeFabricStart(tests: TestSpec[], dir: string, at: string, signal?: AbortSignal): Promise<FabricStart | undefined> {
  const first = tests.find((t) => t.kind === "fabric");
  if (first?.kind !== "fabric") return undefined;
  const path = join(dir, FABRIC_COUNTERS_START);
  try {
    writePrivateFile(path, await readCounters(first.fabric.via, { signal }));
    return { path, at };
  } catch (e) {
    if (e instanceof FabricToolError) return { error: `the fabric's error counters could not be taken before the first test, so none can be compared: ${e.message}` };
    throw e;
  }
}

/** A sweep the run took after one of its tests: the fabric test names the test a counter moved during. */
export interface FabricSweep {
  after: string;
  path: string;
}

/** The name of the file beside a test's logs that holds the sweep taken after it. */
export const FABRIC_COUNTERS_AFTER = "fabric-counters-after.txt";

/**
 * After each test of a run with a fabric test: the counters through the first fabric test's `via`, into
 * the test's log folder (a fabric test's own reading of them serves: no second sweep). A sweep that
 * cannot be taken is said and skipped: the comparison with the start stands, only the test it moved
 * during is not named.
 */
export async function takeFabricSweep(
  tests: TestSpec[],
  test: Pick<PlannedTest, "name" | "kind">,
  logDir: string,
  signal?: AbortSignal,
): Promise<FabricSweep | { error: string } | undefined> {
  const first = tests.find((t) => t.kind === "fabric");
  if (first?.kind !== "fabric") return undefined;
  const after = test.name;
  if (test.kind === "fabric") {
    const own = join(logDir, "ibqueryerrors.txt");
    return existsSync(own) ? { after, path: own } : undefined;
  }
  const path = join(logDir, FABRIC_COUNTERS_AFTER);
  try {
    ensurePrivateDir(logDir);
    writePrivateFile(path, await readCounters(first.fabric.via, { signal }));
    return { after, path };
  } catch (e) {
    if (e instanceof FabricToolError) return { error: `the fabric's error counters could not be taken after test "${after}": ${e.message}` };
    throw e;
  }
}

/** `signal`: the test's (a Ctrl-C, or its timeout): the tool running then is stopped and the unit says which stop it was. */
export async function runFabricUnit(test: PlannedTest, start: FabricStart | undefined, logDir: string, sweeps: FabricSweep[] = [], signal?: AbortSignal): Promise<UnitRun> {
  const startedAt = new Date().toISOString();
  const p = (test.spec as { fabric: FabricParams }).fabric;
  const unit = (status: UnitRun["status"], output: string, message?: string): UnitRun => ({
    unit: "all",
    hosts: [],
    status,
    ...(message !== undefined && { message }),
    startedAt,
    endedAt: new Date().toISOString(),
    ranks: [],
    output,
    tail: message ?? "",
  });
  if (!start) return unit("infra", "", "no sweep of the fabric's error counters was taken at the start of the run; run the suite again");
  if ("error" in start) return unit("infra", "", start.error);
  const path = p.topologyPath ?? p.topology;
  try {
    const topology = { path: p.topology, text: readFileSync(path, "utf8") };
    const before = { path: start.path, text: existsSync(start.path) ? readFileSync(start.path, "utf8") : "", at: start.at };
    // the test's timeout (its signal) bounds the whole reading: a wrapper that hangs (ssh to an SM node that does not answer) is stopped
    const opts = { timeoutMs: test.timeoutMs, signal };
    const iblinkinfo = await runFabricTool(p.via, IBLINKINFO, [0], opts);
    const ibqueryerrors = await readCounters(p.via, opts);
    const pkeys = p.pkeys === undefined ? null : { expected: p.pkeys, tables: await readPkeyTables(p.via, parseIblinkinfo(iblinkinfo), opts) };
    writePrivateFile(join(logDir, "iblinkinfo.txt"), iblinkinfo);
    writePrivateFile(join(logDir, "ibqueryerrors.txt"), ibqueryerrors);
    const taken = sweeps.filter((w) => existsSync(w.path)).map((w) => ({ ...w, text: readFileSync(w.path, "utf8") }));
    const reading: FabricReading = { topology, iblinkinfo, ibqueryerrors, before, pkeys, counters: p.counters, ...(taken.length && { sweeps: taken }) };
    return unit("completed", JSON.stringify(reading));
  } catch (e) {
    if (e instanceof FabricToolError && signal?.aborted) return unit(stopReason(signal), "", stopMessage(stopReason(signal), test.timeoutMs, e.message));
    if (e instanceof FabricToolError || e instanceof ParseError) return unit("infra", "", e.message);
    const code = (e as NodeJS.ErrnoException).code;
    if (code) return unit("infra", "", `cannot read the fabric topology ${path}: ${code}; give the path of a file you can read (relative to the suite file)`);
    throw e;
  }
}
