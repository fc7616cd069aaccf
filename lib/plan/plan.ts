// Suite → Plan: pure. `gpucheck plan` prints it; `gpucheck suite` executes it.
import { workloadFiles, workloadHash } from "../core/assets.ts";
import { SuiteError } from "../core/errors.ts";
import type { AnyKind } from "../core/kind.ts";
import { KINDS } from "../kinds/mod.ts";
import { checkNodesFit, placementOf } from "./placement.ts";
import { planUnits } from "../core/planned-units.ts";
import { firstRoundUnits, planIsolation } from "./pattern.ts";
import { notRunnableOn } from "./not-runnable.ts";
import { suggest } from "../core/did-you-mean.ts";
import type { Plan, PlannedTest, Suite } from "../core/types.ts";
import { workloadArgs } from "./workload-args.ts";
import { FABRIC_COUNTERS_START, type FabricParams, fabricCommands, IBQUERYERRORS, underVia } from "../kinds/fabric/params.ts";
import { secretNames } from "../core/redact.ts";
import { type CliOverrides, getPlatform, type Platform, type PlatformRegistry, platformNames, type RenderContext } from "../core/platform.ts";

export interface PlanOptions {
  platform?: string;
  cli: CliOverrides;
  /** run only these tests */
  only?: string[];
  /** overrides every test's timeout */
  timeoutMs?: number;
  /** `--nodes N`: the node count of every test that does not write `nodes:` itself */
  nodes?: number;
  /** `--each-node`: every one-node test runs on each host, a verdict per host */
  eachNode?: boolean;
  /** the platforms: a lib/pipeline flow's (cli/platforms.ts); without it, the one registered */
  platforms?: PlatformRegistry;
}

export function resolvePlatform(suite: Suite, name?: string, registry?: PlatformRegistry): { platform: Platform<unknown>; settings: unknown } {
  const chosen = name ?? suite.platform.type;
  const platform = getPlatform(chosen, registry);
  if (!platform) {
    throw new SuiteError(suggest(`gpucheck: unknown platform "${chosen}"`, chosen, platformNames(registry)));
  }
  const given = suite.platform.settings[chosen];
  const parsed = platform.settings.safeParse(given ?? {});
  if (!parsed.success) {
    // the loader validated the suite's block; only defaults can fail here, which is a bug in the plugin
    throw new SuiteError(`gpucheck: platform "${chosen}" settings are invalid: ${parsed.error.message}`);
  }
  return { platform, settings: parsed.data };
}

const FLAG_NAMES: Record<string, string> = { hosts: "--hosts/--hostfile", image: "--image", context: "--context", keep: "--keep" };

/** A fabric test as the plan shows it: the tools it runs here and what it compares with. */
function fabricRendering(p: FabricParams): { here: string[][]; topology: string; countersSince: string } {
  return { here: fabricCommands(p), topology: p.topologyPath ?? p.topology, countersSince: `${FABRIC_COUNTERS_START}, taken before the first test` };
}

/** `gpucheck fabric check` with the test's block: what the test does, run by hand against the run's first sweep. */
function fabricByHand(p: FabricParams): string[] {
  return [
    "fabric",
    "check",
    "--topology",
    p.topologyPath ?? p.topology,
    "--counters-before",
    `<results>/${FABRIC_COUNTERS_START}`,
    ...(p.via ? ["--via", p.via] : []),
    ...(p.pkeys === undefined ? [] : ["--pkeys", p.pkeys === "majority" ? "majority" : p.pkeys.map((k) => `0x${k.toString(16)}`).join(",")]),
  ];
}

export function buildPlan(suite: Suite, opts: PlanOptions): Plan {
  const { platform, settings } = resolvePlatform(suite, opts.platform, opts.platforms);
  // a flag the platform would ignore is a mistake the user should hear about before anything runs
  const ignored = Object.keys(opts.cli).filter((k) => k !== "python" && !(platform.flags as readonly string[]).includes(k));
  if (ignored.length) {
    const takers = (k: string) => platformNames(opts.platforms).filter((n) => (getPlatform(n, opts.platforms)!.flags as readonly string[]).includes(k));
    const parts = ignored.map((k) => `${FLAG_NAMES[k] ?? `--${k}`} (used by ${takers(k).join(", ")})`);
    throw new SuiteError(
      `gpucheck: platform "${platform.name}" does not use ${parts.join(", ")}: remove ${ignored.length === 1 ? "it" : "them"} or choose one of those platforms with --platform`,
    );
  }
  const files = [...workloadFiles().keys()];
  const hash = workloadHash();
  let tests = suite.tests;
  if (opts.only?.length) {
    const names = new Set(suite.tests.map((t) => t.name));
    const unknown = opts.only.filter((n) => !names.has(n));
    if (unknown.length) {
      throw new SuiteError(`gpucheck: --only names unknown tests: ${unknown.map((n) => `"${n}"`).join(", ")}: the suite has ${[...names].join(", ")}`);
    }
    tests = tests.filter((t) => opts.only!.includes(t.name));
  }
  const hosts = platform.hosts?.({ suite, settings, cli: opts.cli });
  if (opts.nodes !== undefined) checkNodesFit(opts.nodes, platform.name, hosts);
  const eachNode = opts.eachNode === true || suite.eachNode === true;
  const planned: PlannedTest[] = tests.map((written) => {
    const nodes = opts.nodes !== undefined && !written.nodesSet ? opts.nodes : written.nodes;
    // each-node: the per-node mechanism inventory uses, for any test that needs one node
    // a fabric test reads the fabric once, where gpucheck runs: never one per node
    const perNode = written.perNode || (eachNode && nodes === 1 && written.kind !== "fabric");
    const spec = { ...written, nodes, perNode };
    // a kind may fix its ranks (inventory describes a node: one process per node, whatever the defaults say)
    const ranksPerNode = (KINDS[spec.kind] as AnyKind).fixedRanksPerNode ?? spec.ranksPerNode;
    const notRunnable = notRunnableOn(spec, platform, nodes, opts.platforms);
    const isolation = notRunnable ? undefined : planIsolation(spec, platform, hosts, nodes, opts.platforms);
    // an isolating pattern covers every host it isolates among, a group of them at a time
    const first = isolation && !isolation.onFailure ? firstRoundUnits(isolation, ranksPerNode) : undefined;
    const test = {
      name: spec.name,
      kind: spec.kind,
      nodes: first ? isolation!.hosts.length : nodes,
      gpusPerNode: spec.gpusPerNode,
      ranksPerNode,
      worldSize: first ? Math.max(...first.map((u) => u.ranks.length)) : perNode ? ranksPerNode : nodes * ranksPerNode,
      perNode,
      timeoutMs: opts.timeoutMs ?? spec.timeoutMs,
      launch: {
        python: opts.cli.python ?? spec.python,
        args: workloadArgs(spec),
        env: spec.env,
        secret: secretNames(spec.env, suite.redact),
        files,
      },
      expect: spec.expect,
      spec,
      units: notRunnable ? [] : (first ?? planUnits({ nodes, ranksPerNode, perNode }, hosts)),
      ...(isolation && { isolation }),
      ...(notRunnable && { notRunnable }),
    };
    // nothing is launched: no hosts used, nothing rendered (plan equals run)
    if (notRunnable) return { ...test, rendered: null };
    const ctx: RenderContext<unknown> = { suite, settings, cli: opts.cli, test, launch: test.launch, workloadHash: hash };
    const placement = hosts && (first ? { hosts: isolation!.hosts, unused: hosts.names.filter((h) => !isolation!.hosts.includes(h)) } : placementOf(spec, hosts));
    // a fabric test launches nothing on the nodes: what it runs where gpucheck runs is its rendering
    // its launch is the same check by hand (results.json keeps a test's launch to rerun it)
    if (spec.kind === "fabric")
      return { ...test, launch: { ...test.launch, python: "gpucheck", args: fabricByHand(spec.fabric), files: [] }, rendered: fabricRendering(spec.fabric) };
    return { ...test, ...(placement && { placement }), rendered: platform.render(ctx) };
  });
  const fabric = planned.find((t) => t.spec.kind === "fabric")?.spec as { fabric: FabricParams } | undefined;
  return {
    suite: {
      name: suite.name,
      description: suite.description,
      cluster: suite.cluster,
      path: suite.source.path,
      sha256: suite.source.sha256,
    },
    platform: platform.name,
    settings: settings as Record<string, unknown>,
    ...(hosts && { hosts: hosts.names }),
    // a test the platform cannot run is said before the suite starts, not only in its results
    warnings: planned.flatMap((t) => [...(t.placement?.warning ? [t.placement.warning] : []), ...(t.notRunnable ? [t.notRunnable] : [])]),
    ...(fabric && { fabricStart: { command: underVia(fabric.fabric.via, IBQUERYERRORS), file: FABRIC_COUNTERS_START } }),
    ...(platform.perNodeWindow && { perNodeWindow: platform.perNodeWindow(settings) }),
    tests: planned,
  };
}
