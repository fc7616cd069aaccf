// `gpucheck fabric snapshot|counters|check`: the InfiniBand fabric against its declared topology, from
// one node with the subnet manager's view (docs/fabric.md). The diagnostics are infiniband-diags'
// own (iblinkinfo, ibqueryerrors); --via runs them under a wrapper ("ssh sm-node", or ibsim-run in
// the tests), split on spaces.
import { spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { EXIT, ParseError } from "../core/errors.ts";
import { compareFabric, counterFindings, type Finding } from "../kinds/fabric/checks.ts";
import { parseIbqueryerrors } from "../kinds/fabric/ibqueryerrors.ts";
import { type LinkInfoPort, parseIblinkinfo } from "../kinds/fabric/iblinkinfo.ts";
import { comparePkeys, parseSmpqueryPkeys } from "../kinds/fabric/pkeys.ts";
import { formatTopology, parseTopology, TopologyError } from "../kinds/fabric/topology.ts";
import type { Printer } from "./printer.ts";

export class FabricToolError extends Error {}

/** `ok`: the exit statuses that mean the tool read the fabric (ibqueryerrors exits 1 when it found errors). */
function runTool(via: string | undefined, argv: string[], ok: number[] = [0]): string {
  const full = [...(via ? via.split(/\s+/).filter(Boolean) : []), ...argv];
  const r = spawnSync(full[0], full.slice(1), { encoding: "utf8", maxBuffer: 256 * 1024 * 1024, timeout: 300_000 });
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

const IBLINKINFO = ["iblinkinfo"];
const IBQUERYERRORS = ["ibqueryerrors", "--skip-sl"];
// infiniband-diags' ibqueryerrors exits 1 when a port's counters are over its thresholds: a reading,
// not a failure (its "## Summary" line, which the parser requires, says the sweep finished)
const IBQUERYERRORS_OK = [0, 1];

function readText(path: string, what: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch (e) {
    // a file the user named: a usage error (exit 2), like a topology line that cannot be read
    throw new TopologyError(`cannot read ${what} ${path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}; give the path of a file you can read`);
  }
}

function guarded(print: Printer, body: () => number): number {
  try {
    return body();
  } catch (e) {
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
  if (text.trim() === "majority") return "majority";
  const keys = text.split(",").map((k) => k.trim());
  const bad = keys.find((k) => !/^0x[0-9a-f]{1,4}$/i.test(k));
  if (bad !== undefined) throw new TopologyError(`--pkeys "${text}": "${bad}" is not a PKey; give "majority" or PKeys in hex separated by commas ("0x7fff,0x8001")`);
  return keys.map(Number);
}

/** The PKey table of every HCA port that iblinkinfo found with a LID: compute ports are the CAs. */
function pkeyFindings(via: string | undefined, ports: LinkInfoPort[], expected: number[] | undefined): Finding[] {
  const tables = new Map<string, number[]>();
  for (const p of ports.filter((x) => x.nodeType === "CA" && x.lid > 0)) {
    const argv = ["smpquery", "pkeys", String(p.lid), String(p.port)];
    tables.set(`"${p.node}" port ${p.port}`, parseSmpqueryPkeys(runTool(via, argv), `${argv.join(" ")} ("${p.node}" port ${p.port})`));
  }
  return comparePkeys(tables, expected);
}

export function fabricSnapshot({ flags, print }: { flags: { out?: string; via?: string }; print: Printer }): number {
  return guarded(print, () => {
    const ports = parseIblinkinfo(runTool(flags.via, IBLINKINFO));
    const text = formatTopology(ports, `fabric topology taken by gpucheck fabric snapshot on ${new Date().toISOString()} from iblinkinfo`);
    if (flags.out) {
      writeFileSync(flags.out, text);
      print.out(`wrote ${text.split("\n").filter((l) => l.startsWith('"')).length} cables to ${flags.out}\n`);
    } else print.out(text);
    return EXIT.ok;
  });
}

export function fabricCounters({ flags, print }: { flags: { out: string; via?: string }; print: Printer }): number {
  return guarded(print, () => {
    const text = runTool(flags.via, IBQUERYERRORS, IBQUERYERRORS_OK);
    const ports = parseIbqueryerrors(text);
    writeFileSync(flags.out, text);
    print.out(`wrote the error counters of the fabric to ${flags.out} (${ports.length} ports with a non-zero counter)\n`);
    return EXIT.ok;
  });
}

export function fabricCheck({ flags, print }: { flags: { topology: string; countersBefore?: string; pkeys?: string; via?: string; json?: boolean }; print: Printer }): number {
  return guarded(print, () => {
    const design = parseTopology(readText(flags.topology, "the fabric topology"), flags.topology);
    const expectedPkeys = flags.pkeys === undefined ? undefined : parsePkeyList(flags.pkeys);
    const before = flags.countersBefore ? parseIbqueryerrors(readText(flags.countersBefore, "the earlier counters"), flags.countersBefore) : null;
    const ports = parseIblinkinfo(runTool(flags.via, IBLINKINFO));
    const after = parseIbqueryerrors(runTool(flags.via, IBQUERYERRORS, IBQUERYERRORS_OK));
    const findings: Finding[] = [...compareFabric(design, ports), ...counterFindings(before, after, ports)];
    if (expectedPkeys !== undefined) findings.push(...pkeyFindings(flags.via, ports, expectedPkeys === "majority" ? undefined : expectedPkeys));
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
