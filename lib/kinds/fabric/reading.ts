// One reading of the fabric, as `gpucheck fabric check` and a suite's `kind: fabric` test take it: the
// declared topology's text, iblinkinfo's and ibqueryerrors' output, the earlier counters it compares
// with, and each compute port's PKey table. Kept whole (a test's output, saved in its run records) so
// that `gpucheck judge` compares again from the same text; fabricFindings is the one comparison.
import { compareFabric, counterFindings, type Finding } from "./checks.ts";
import { parseIbqueryerrors } from "./ibqueryerrors.ts";
import { type LinkInfoPort, parseIblinkinfo } from "./iblinkinfo.ts";
import { comparePkeys, parseSmpqueryPkeys } from "./pkeys.ts";
import { type DesignLink, parseTopology } from "./topology.ts";

export interface FabricReading {
  topology: { path: string; text: string };
  iblinkinfo: string;
  ibqueryerrors: string;
  /** the counters compared with: their file, its text, and when they were taken, as said after a moved counter's values ("since the start of the run") */
  before: { path: string; text: string; at: string } | null;
  /** the PKeys expected ("majority" or declared) and each compute port's smpquery pkeys text; null: not checked */
  pkeys: { expected: "majority" | number[]; tables: Array<{ node: string; port: number; lid: number; text: string }> } | null;
  /** the watched error counters (absent: all of WATCHED_COUNTERS) */
  counters?: string[];
  /** the sweeps the run took after each earlier test, in order: a moved counter is placed in the test it moved during */
  sweeps?: Array<{ after: string; path: string; text: string }>;
}

export interface FabricFindings {
  design: DesignLink[];
  ports: LinkInfoPort[];
  findings: Finding[];
}

/** Every difference of the reading from its design; TopologyError or ParseError when a text cannot be read. */
export function fabricFindings(r: FabricReading): FabricFindings {
  const design = parseTopology(r.topology.text, r.topology.path);
  const before = r.before ? parseIbqueryerrors(r.before.text, r.before.path) : null;
  const ports = parseIblinkinfo(r.iblinkinfo);
  const after = parseIbqueryerrors(r.ibqueryerrors);
  const steps = (r.sweeps ?? []).map((s) => ({ after: s.after, counters: parseIbqueryerrors(s.text, s.path) }));
  const findings: Finding[] = [...compareFabric(design, ports), ...counterFindings(before, after, ports, r.counters, r.before?.at, steps)];
  if (r.pkeys) {
    const tables = new Map<string, number[]>();
    for (const t of r.pkeys.tables) {
      const at = `"${t.node}" port ${t.port}`;
      tables.set(at, parseSmpqueryPkeys(t.text, `smpquery pkeys ${t.lid} ${t.port} (${at})`));
    }
    findings.push(...comparePkeys(tables, r.pkeys.expected === "majority" ? undefined : r.pkeys.expected));
  }
  return { design, ports, findings };
}
