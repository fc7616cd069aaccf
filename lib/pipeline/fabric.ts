// `gpucheck fabric snapshot|counters|check`: the InfiniBand fabric against its declared topology, from
// one node with the subnet manager's view (docs/fabric.md). The diagnostics are infiniband-diags'
// own (iblinkinfo, ibqueryerrors, smpquery), run by lib/execute/fabric-tools.ts; --via runs them
// under a wrapper ("ssh sm-node", or ibsim-run in the tests), split on spaces. The comparison is
// lib/kinds/fabric/reading.ts's, the same a suite's `kind: fabric` test makes.
import { readFileSync, writeFileSync } from "node:fs";
import { EXIT, ParseError } from "../core/errors.ts";
import { FabricToolError, IBLINKINFO, readCounters, readPkeyTables, runFabricTool } from "../execute/fabric-tools.ts";
import { parseIbqueryerrors } from "../kinds/fabric/ibqueryerrors.ts";
import { parseIblinkinfo } from "../kinds/fabric/iblinkinfo.ts";
import { parsePkeys } from "../kinds/fabric/params.ts";
import { fabricFindings } from "../kinds/fabric/reading.ts";
import { formatTopology, parseTopology, TopologyError } from "../kinds/fabric/topology.ts";
import type { Printer } from "./printer.ts";

export { FabricToolError } from "../execute/fabric-tools.ts";

function readText(path: string, what: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch (e) {
    // a file the user named: a usage error (exit 2), like a topology line that cannot be read
    throw new TopologyError(`cannot read ${what} ${path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}; give the path of a file you can read`);
  }
}

/** What a `gpucheck fabric` command is given: its flags, where it prints, and the Ctrl-C that stops its tool. */
export interface FabricRequest<F> {
  flags: F;
  print: Printer;
  signal?: AbortSignal;
}

/** Exit status of a command stopped by Ctrl-C or SIGTERM (128 + SIGINT), as `suite` exits. */
const STOPPED = 130;

async function guarded(print: Printer, signal: AbortSignal | undefined, body: () => Promise<number>): Promise<number> {
  try {
    return await body();
  } catch (e) {
    if (e instanceof FabricToolError && signal?.aborted) {
      print.err(`gpucheck fabric: stopped: ${e.message}\n`);
      return STOPPED;
    }
    // instanceof, not the class's name: the compiled binary's minifier renames classes
    if (e instanceof FabricToolError || e instanceof ParseError || e instanceof TopologyError) {
      print.err(`gpucheck fabric: ${e.message}\n`);
      return e instanceof TopologyError ? EXIT.usage : EXIT.infra;
    }
    throw e;
  }
}

/** --pkeys: "majority" (the set most ports hold is the expectation) or a comma list of PKeys. */
function parsePkeyList(text: string): number[] | "majority" {
  const r = parsePkeys(text.trim());
  if (!r.ok) throw new TopologyError(`--pkeys "${text}": ${r.reason}`);
  return r.value;
}

export function fabricSnapshot({ flags, print, signal }: FabricRequest<{ out?: string; via?: string }>): Promise<number> {
  return guarded(print, signal, async () => {
    const ports = parseIblinkinfo(await runFabricTool(flags.via, IBLINKINFO, [0], { signal }));
    const text = formatTopology(ports, `fabric topology taken by gpucheck fabric snapshot on ${new Date().toISOString()} from iblinkinfo`);
    if (flags.out) {
      writeFileSync(flags.out, text);
      print.out(`wrote ${text.split("\n").filter((l) => l.startsWith('"')).length} cables to ${flags.out}\n`);
    } else print.out(text);
    return EXIT.ok;
  });
}

export function fabricCounters({ flags, print, signal }: FabricRequest<{ out: string; via?: string }>): Promise<number> {
  return guarded(print, signal, async () => {
    const text = await readCounters(flags.via, { signal });
    const ports = parseIbqueryerrors(text);
    writeFileSync(flags.out, text);
    print.out(`wrote the error counters of the fabric to ${flags.out} (${ports.length} ports with a non-zero counter)\n`);
    return EXIT.ok;
  });
}

export function fabricCheck({ flags, print, signal }: FabricRequest<{ topology: string; countersBefore?: string; pkeys?: string; via?: string; json?: boolean }>): Promise<number> {
  return guarded(print, signal, async () => {
    const topology = { path: flags.topology, text: readText(flags.topology, "the fabric topology") };
    const expectedPkeys = flags.pkeys === undefined ? undefined : parsePkeyList(flags.pkeys);
    const before = flags.countersBefore ? { path: flags.countersBefore, text: readText(flags.countersBefore, "the earlier counters"), at: "during the test" } : null;
    // the files are read before any tool runs: a typo in a path costs no sweep of the fabric
    parseTopology(topology.text, topology.path);
    if (before) parseIbqueryerrors(before.text, before.path);
    const iblinkinfo = await runFabricTool(flags.via, IBLINKINFO, [0], { signal });
    const ibqueryerrors = await readCounters(flags.via, { signal });
    const pkeys = expectedPkeys === undefined ? null : { expected: expectedPkeys, tables: await readPkeyTables(flags.via, parseIblinkinfo(iblinkinfo), { signal }) };
    const { design, ports, findings } = fabricFindings({ topology, iblinkinfo, ibqueryerrors, before, pkeys });
    if (flags.json) print.out(`${JSON.stringify({ cables: design.length, ports: ports.length, findings }, null, 2)}\n`);
    else {
      for (const f of findings) print.out(`FAIL ${f.kind}: ${f.message}\n`);
      print.out(
        findings.length === 0
          ? `PASS fabric: all ${design.length} cables of ${flags.topology} as designed, no watched error counter moved\n`
          : `${findings.length} difference(s) from ${flags.topology} (${design.length} cables)\n`,
      );
    }
    return findings.length === 0 ? EXIT.ok : EXIT.failed;
  });
}
