// The platform interface: the narrow waist between the plan and the world.
// A platform renders a planned test into what it would launch (pure, printed by `gpucheck plan`)
// and runs it (impure, honours ctx.signal, always cleans up what it created before returning).
import type { ZodType } from "./schema.ts";
import type { Slots } from "./slots.ts";
import type { Launch, PlannedTest, PlannedUnit, Suite, UnitRun } from "./types.ts";

/** Values from the command line that override suite settings. */
export interface CliOverrides {
  hosts?: string[];
  python?: string;
  image?: string;
  context?: string;
  keep?: boolean;
}

/**
 * The run's hosts as far as they are known before it starts. `separate`: each node needs a host of
 * its own (ssh, several docker engines, a slurm node list), so hosts beyond a test's nodes sit idle;
 * otherwise every node shares the one host (local, a single docker engine).
 */
export interface RunHosts {
  names: string[];
  separate: boolean;
}

export interface RenderContext<S> {
  suite: Suite;
  /** this platform's settings from the suite (`platform.<name>:`), validated by `settings` */
  settings: S;
  cli: CliOverrides;
  /** the test being rendered, minus `rendered`; `units` absent only in a test built by hand (lib/core/planned-units.ts unitsOfTest) */
  test: TestToRender;
  /** what to run on every rank: python + args + env; the platform adds rank env and PYTHONPATH */
  launch: Launch;
  /** sha256 of the staged workload, so platforms can stage once per content */
  workloadHash: string;
}

export interface RunContext<S> extends RenderContext<S> {
  /** the run's results directory (absolute) */
  outDir: string;
  /** where this test's rank logs must end up on this machine: logs/<test>/ (absolute) */
  logDir: string;
  /** the workload package: relative path → file content */
  workload: ReadonlyMap<string, string>;
  /** aborted on timeout (reason "timeout") or Ctrl-C/SIGTERM (reason "cancelled") */
  signal: AbortSignal;
  /** epoch ms by which the test must be over */
  deadline: number;
  /**
   * a per-node test whose nodes only the run learns (k8s without platform.k8s.nodes): how many units
   * take turns in the platform's perNodeWindow, so the test gets one timeout per turn (a plan that
   * could not count its nodes gave it one) and `deadline` moves with it. Absent when nobody keeps the budget.
   */
  perNodeUnits?(count: number): void;
  /** live output, one line at a time, for the console and the progress display */
  onLine(unit: string, rank: number, line: string): void;
  /** platform-level notes for the console ("submitted job 42", "pulling image …") */
  note(message: string): void;
  /** a unit's turn came (ssh's window): the progress counts it running from here, not from its first line */
  unitStarted?(unit: string): void;
  /** a unit is over, as it ends rather than with the test: the person watching 1,000 nodes sees each one */
  unitEnded?(run: UnitRun): void;
}

export type TestToRender = Omit<PlannedTest, "rendered" | "units"> & { units?: PlannedUnit[] };

/**
 * What render() returns: the platform's own typed manifest. Values only the run learns appear in
 * it as named slots ("{{masterPort}}"); `slots` says what each will be. run() binds them into the
 * same manifest (lib/core/slots.ts bindSlots) and launches exactly that.
 */
export interface Manifest {
  slots: Slots;
  /** the human rendering `gpucheck plan` prints */
  text?: string;
}

export interface Platform<S = unknown, M extends Manifest = Manifest> {
  name: string;
  summary: string;
  /**
   * schema of `platform.<name>:` in a suite (lib/core/schema.ts, zod's API without zod); unknown keys
   * must be rejected (strict). Wrapped in z.lazy so that a command never reading `platform.<name>:`
   * does not build it (zod objects cost about a millisecond each to build: BENCHMARKS.md, start-up).
   */
  settings: ZodType<S>;
  /** the command-line overrides it reads besides --python: any other given flag is an error, never silently ignored */
  flags: ReadonlyArray<Exclude<keyof CliOverrides, "python">>;
  /**
   * runs whatever units the test carries, each on its own hosts and all at once: what the isolating
   * patterns' rounds need (a pair here, another there). Absent: the platform runs a test as one
   * whole-cluster unit or one unit per node only.
   */
  anyUnits?: true;
  /**
   * the per-node units it runs at once when they take turns (ssh: maxParallel, like pdsh -f): each
   * node then has the test's whole timeout to itself, and the test as many timeouts as turns. Absent:
   * every unit runs at once, bounded together by the test's timeout.
   */
  perNodeWindow?(settings: S): number;
  /**
   * pure: where settings of an `anyUnits` platform still rule out a round's groups (k8s's Kubeflow
   * modes), the setting's key and why, so the loader can point at the test and at the setting
   */
  groupsRefused?(settings: S): { key: string; why: string } | undefined;
  /** where a suite names the hosts before the run, when it is not --hosts (k8s: "platform.k8s.nodes in the suite") */
  hostsFrom?: string;
  /** pure: the hosts a run will use; absent or undefined when they are known only at run time (k8s, slurm without a node list) */
  hosts?(ctx: Pick<RenderContext<S>, "suite" | "settings" | "cli">): RunHosts | undefined;
  /** pure: the exact commands/scripts/manifests this test becomes; shown by `gpucheck plan` */
  render(ctx: RenderContext<S>): M;
  /** launch, follow and clean up; one UnitRun per unit (one, or one per node in per-node mode) */
  run(ctx: RunContext<S>): Promise<UnitRun[]>;
}

/** Rank environment every platform sets, so the workload needs no launcher. */
export function rankEnv(r: {
  rank: number;
  worldSize: number;
  localRank: number;
  localWorldSize: number;
  masterAddr: string;
  masterPort: number;
  node: string;
}): Record<string, string> {
  return {
    RANK: String(r.rank),
    WORLD_SIZE: String(r.worldSize),
    LOCAL_RANK: String(r.localRank),
    LOCAL_WORLD_SIZE: String(r.localWorldSize),
    MASTER_ADDR: r.masterAddr,
    MASTER_PORT: String(r.masterPort),
    GPUCHECK_NODE: r.node,
  };
}

// biome-ignore lint/suspicious/noExplicitAny: Platform<S> uses S in both directions, so no narrower type admits every plugin
export type AnyPlatform = Platform<any, any>;

// The platforms sit above the stages (they run what the stages plan), so the stages cannot import
// them: a command passes the cli layer's registry (cli/platforms.ts) to its flow in lib/pipeline,
// which passes it on to the load and plan stages (`platforms` in their options), and they look
// platforms up in it by the name a suite or --platform gives. The registry set here is only the
// default for a caller that passes none: the unit tests' preload sets it; the binary never does.
let registry: PlatformRegistry | undefined;

/** Every platform by the name a suite's `platform.type` or --platform gives (cli/platforms.ts PLATFORMS). */
export type PlatformRegistry = Readonly<Record<string, AnyPlatform>>;

export function registerPlatforms(platforms: PlatformRegistry): void {
  registry = platforms;
}

function platforms(): PlatformRegistry {
  if (!registry)
    throw new Error("gpucheck: no platform registry was given: pass cli/platforms.ts PLATFORMS as `platforms` when loading or planning a suite (each lib/pipeline flow does)");
  return registry;
}

/** `registry`: the one a lib/pipeline flow was given; without it, the one registered (the unit tests' preload) */
export function platformNames(registry: PlatformRegistry = platforms()): string[] {
  return Object.keys(registry);
}

export function getPlatform(name: string, registry: PlatformRegistry = platforms()): Platform<unknown> | undefined {
  return Object.hasOwn(registry, name) ? (registry[name] as Platform<unknown>) : undefined;
}
