// A fabric test's block: the declared topology (a path, relative to the suite file that names it),
// the PKeys every compute port must hold ("majority" or a list), the wrapper the diagnostics run
// under ("ssh sm-node"), and which error counters must not move during the run.
import * as z from "../../core/schema.ts";
import { show } from "../../core/units.ts";
import { nonEmptyText, strictMap } from "../../core/fields.ts";
import type { ResolveContext } from "../../core/kind.ts";
import { WATCHED_COUNTERS } from "./checks.ts";

export interface FabricParams {
  /** the topology file as written in the suite */
  topology: string;
  /** the topology's absolute path, resolved against the directory of the suite file that wrote it (lib/load/fabric-paths.ts) */
  topologyPath?: string;
  /** "majority": the set most compute ports hold; a list: the declared PKeys; absent: PKeys are not checked */
  pkeys?: "majority" | number[];
  /** the command the diagnostics run under, split on spaces ("ssh sm-node"); absent: run here */
  via?: string;
  /** the error counters that must not move (IBTA PortCounters names, as ibqueryerrors prints them) */
  counters: string[];
}

/** "majority", or PKeys in hex ("0x7fff,0x8001" or a list): the why when not, for the CLI's flag and the suite's key alike. */
export function parsePkeys(v: unknown): { ok: true; value: "majority" | number[] } | { ok: false; reason: string } {
  if (v === "majority") return { ok: true, value: "majority" };
  const items = typeof v === "string" ? v.split(",").map((k) => k.trim()) : Array.isArray(v) ? v.map((k) => (typeof k === "string" ? k.trim() : k)) : null;
  const hint = 'give "majority" or PKeys in hex separated by commas ("0x7fff,0x8001")';
  if (items === null || items.length === 0) return { ok: false, reason: `must be "majority" or a list of PKeys, got ${show(v)}; ${hint}` };
  const bad = items.find((k) => typeof k !== "string" || !/^0x[0-9a-f]{1,4}$/i.test(k));
  if (bad !== undefined) return { ok: false, reason: `${show(bad)} is not a PKey; ${hint}` };
  return { ok: true, value: (items as string[]).map(Number) };
}

const pkeysField = () =>
  z.unknown().transform((v, ctx) => {
    const r = parsePkeys(v);
    if (r.ok) return r.value;
    ctx.issues.push({ code: "custom", message: r.reason, input: v });
    return z.NEVER;
  });

const countersField = () =>
  z.unknown().transform((v, ctx) => {
    const items = typeof v === "string" ? v.split(",").map((k) => k.trim()) : Array.isArray(v) ? v : null;
    const known: readonly string[] = WATCHED_COUNTERS;
    const bad = items === null || items.length === 0 ? v : items.find((k) => typeof k !== "string" || !known.includes(k));
    if (bad !== undefined) {
      ctx.issues.push({ code: "custom", message: `${show(bad)} is not a watched error counter: give some of ${known.join(", ")}`, input: v });
      return z.NEVER;
    }
    return items as string[];
  });

export const fabricBlock = () =>
  strictMap({
    topology: nonEmptyText().optional(),
    pkeys: pkeysField().optional(),
    via: nonEmptyText().optional(),
    counters: countersField().optional(),
  });

export function resolveFabric(written: Partial<FabricParams> | undefined, ctx: ResolveContext): FabricParams {
  if (!written?.topology && ctx.sound("fabric.topology"))
    ctx.report(
      written ? [...ctx.testAt, "fabric"] : ctx.testAt,
      '"fabric.topology" is required: the file that declares every cable (write one from a good fabric with gpucheck fabric snapshot --out FILE)',
      "map",
    );
  return {
    topology: written?.topology ?? "",
    ...(written?.pkeys !== undefined && { pkeys: written.pkeys }),
    ...(written?.via !== undefined && { via: written.via }),
    counters: written?.counters ?? [...WATCHED_COUNTERS],
  };
}

/** The run's first sweep of the error counters, in the run (or soak) directory. */
export const FABRIC_COUNTERS_START = "fabric-counters-start.txt";

export const IBLINKINFO = ["iblinkinfo"];
export const IBQUERYERRORS = ["ibqueryerrors", "--skip-sl"];

/** A tool's argv under the test's wrapper ("ssh sm-node iblinkinfo"), split on spaces as it is run. */
export function underVia(via: string | undefined, argv: string[]): string[] {
  return [...(via ? via.split(/\s+/).filter(Boolean) : []), ...argv];
}

/** What a fabric test runs where gpucheck runs, as `gpucheck plan` shows it and the run does it. */
export function fabricCommands(p: FabricParams): string[][] {
  return [underVia(p.via, IBLINKINFO), underVia(p.via, IBQUERYERRORS), ...(p.pkeys === undefined ? [] : [underVia(p.via, ["smpquery", "pkeys", "<lid>", "<port>"])])];
}
