// kind: fabric: the InfiniBand cabling, link rates, error counters and partitions against the suite's
// declared topology (docs/fabric.md). Unlike every other kind it runs no rank on the nodes: the run
// takes the reading where gpucheck runs (lib/execute/fabric-run.ts), once per run, through `via`, and
// compares the counters with the sweep the run took before its first test. Each difference is a
// check of its own naming both ends of the cable, so a report, junit.xml and the certificate name it.
import * as z from "../../core/schema.ts";
import { lower, type MetricInfo } from "../../core/metrics.ts";
import { ParseError } from "../../core/errors.ts";
import type { KindBlocks, Measurement, MetricCheck, TestSpec } from "../../core/types.ts";
import type { TestKind } from "../../core/kind.ts";
import type { Finding, FindingKind } from "./checks.ts";
import { type FabricParams, fabricBlock, resolveFabric } from "./params.ts";
import { type FabricReading, fabricFindings } from "./reading.ts";
import { TopologyError } from "./topology.ts";

export type { FabricParams } from "./params.ts";

/** The classes of difference a fabric test checks, each one metric: one check per finding, one passing check when none. */
const CLASSES: Record<string, { kinds: FindingKind[]; ok: (r: FabricRaw) => string }> = {
  fabric_cabling: {
    kinds: ["switch-missing", "link-missing", "wrong-port", "port-state"],
    ok: (r) => `every one of the ${r.cables} cables of ${r.topology} in place and Active/LinkUp`,
  },
  fabric_link_rate: { kinds: ["width", "speed"], ok: (r) => `every cable of ${r.topology} at its declared width and speed` },
  fabric_counters: { kinds: ["counter"], ok: (r) => `no watched error counter (${r.watched.join(", ")}) moved ${r.since}` },
  fabric_pkeys: { kinds: ["pkey"], ok: () => "every compute port holds the expected partitions" },
};

const metrics: Record<string, MetricInfo> = {
  fabric_differences: lower("count", "every difference of the fabric from its design the checks below name, together"),
  fabric_cabling: lower("count", "cables of the declared topology missing, on the wrong port, or not Active/LinkUp, and switches missing (iblinkinfo against fabric.topology)"),
  fabric_link_rate: lower("count", "cables trained at another width or per-lane speed than the topology declares (iblinkinfo)"),
  fabric_counters: lower(
    "count",
    "watched error counters (fabric.counters) that moved since the run's first sweep, fabric-counters-start.txt (ibqueryerrors --skip-sl); in a soak, since the soak's",
  ),
  fabric_pkeys: lower("count", "compute ports whose partitions differ from fabric.pkeys (smpquery pkeys on every HCA port); null when fabric.pkeys is not set"),
};

/** What a fabric test keeps of its reading in results.json: the findings and what they were compared with. */
export interface FabricRaw {
  topology: string;
  cables: number;
  ports: number;
  since: string;
  watched: string[];
  pkeys: boolean;
  findings: Finding[];
}

declare module "../../core/types.ts" {
  interface KindBlocks {
    fabric: { fabric: FabricParams };
  }
}

export function fabricMeasurement(output: string): Measurement {
  let reading: FabricReading;
  try {
    reading = JSON.parse(output) as FabricReading;
  } catch {
    throw new ParseError("the fabric test's reading is not the JSON gpucheck writes (lib/execute/fabric-run.ts); run the test again");
  }
  let found: ReturnType<typeof fabricFindings>;
  try {
    found = fabricFindings(reading);
  } catch (e) {
    // a topology gpucheck cannot read is caught by validate; here it is a reading that cannot be judged
    if (e instanceof TopologyError) throw new ParseError(e.message);
    throw e;
  }
  const raw: FabricRaw = {
    topology: reading.topology.path,
    cables: found.design.length,
    ports: found.ports.length,
    since: reading.before?.at ?? "(no earlier sweep)",
    watched: reading.counters ?? [],
    pkeys: reading.pkeys !== null,
    findings: found.findings,
  };
  const count = (name: string) => found.findings.filter((f) => CLASSES[name].kinds.includes(f.kind)).length;
  return {
    metrics: {
      fabric_differences: found.findings.length,
      fabric_cabling: count("fabric_cabling"),
      fabric_link_rate: count("fabric_link_rate"),
      fabric_counters: count("fabric_counters"),
      fabric_pkeys: raw.pkeys ? count("fabric_pkeys") : null,
    },
    ...(raw.pkeys ? {} : { unmeasured: { fabric_pkeys: "the test's fabric.pkeys is not set: partitions were not read" } }),
    raw,
  };
}

/** "leaf01[5]" (a finding's part) → "leaf01" port 5, as the messages name a port; a switch's bare name stays. */
function shownEnd(key: string): string {
  // a PKey finding's part is already named so
  if (key.startsWith('"')) return key;
  const m = /^(.*)\[(\d+)\]$/.exec(key);
  return m ? `"${m[1]}" port ${m[2]}` : `"${key}"`;
}

/** One failing check per finding (the cable named at both ends is its part), one passing check per class without any. */
export function fabricChecks(m: Measurement): MetricCheck[] {
  const raw = m.raw as FabricRaw | undefined;
  if (!raw?.findings) return [];
  const checks: MetricCheck[] = [];
  for (const [metric, cls] of Object.entries(CLASSES)) {
    if (metric === "fabric_pkeys" && !raw.pkeys) continue;
    const expectation = `${metric} = 0 (as ${raw.topology} declares; always checked)`;
    const mine = raw.findings.filter((f) => cls.kinds.includes(f.kind));
    if (mine.length === 0) checks.push({ metric, expectation, measured: 0, expected: 0, unit: "count", ok: true, message: `${metric} 0: ${cls.ok(raw)}` });
    for (const f of mine)
      checks.push({
        metric,
        expectation,
        measured: 1,
        expected: 0,
        unit: "count",
        ok: false,
        message: f.message,
        part: { type: "link", host: "fabric", name: f.parts.map(shownEnd).join(" – ") },
      });
  }
  return checks;
}

export const fabric: TestKind<"fabric", FabricParams, KindBlocks["fabric"]> = {
  name: "fabric",
  summary:
    "the InfiniBand fabric against the suite's topology file, once per run where gpucheck runs: cabling, link width and speed, error counters since the run began, partitions (iblinkinfo, ibqueryerrors, smpquery)",
  block: z.lazy(fabricBlock),
  keys: [
    { key: "topology", doc: "the declared topology (docs/fabric.md), relative to the suite file; required" },
    { key: "pkeys", doc: '"majority" or PKeys in hex ("0x7fff,0x8001"): every compute port must hold them; absent: partitions are not checked' },
    { key: "via", doc: 'the command the diagnostics run under, split on spaces ("ssh sm-node"); absent: on the machine gpucheck runs on' },
    {
      key: "counters",
      default: "SymbolErrorCounter, LinkDownedCounter, LinkErrorRecoveryCounter, PortRcvErrors, ExcessiveBufferOverrunErrors",
      doc: "the error counters that must not move during the run",
    },
  ],
  // no rank runs on the nodes: the plan's one unit is the reading taken where gpucheck runs
  fixedRanksPerNode: 1,
  perNode: false,
  resolve: (block, ctx) => ({ fabric: resolveFabric(block as Partial<FabricParams> | undefined, ctx) }),
  params: (spec: TestSpec) => spec.fabric,
  metrics,
  headline: "fabric_differences",
  telemetry: false,
  args: () => ["fabric"],
  measure: (output) => fabricMeasurement(output),
  checks: fabricChecks,
  runsHere: true,
  plots: () => [],
  needs: () => ({ torch: false, gpus: 0, nccl: false }),
  resultSource:
    "the reading gpucheck takes where it runs (lib/execute/fabric-run.ts): the topology file's text, iblinkinfo, ibqueryerrors --skip-sl, the run's first sweep and smpquery pkeys of every HCA port, compared by lib/kinds/fabric/reading.ts",
};
