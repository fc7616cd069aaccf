// The data that flows through the pipeline:
//   suite.yaml → Suite → Plan → UnitRun[] → Measurement → Verdict → ResultsFile
// Everything here is plain data (JSON-serialisable) so plans and results can be printed,
// saved and re-judged without the code that produced them. results.json's shapes (ResultsFile down to
// Measurement and Verdict) are generated from its schema (lib/report/results-schema.ts, by
// scripts/gen-results-types.ts) into results.gen.ts; they are re-exported here.
import type * as Results from "./results.gen.ts";
import type { Expectation, IsolatingPattern, UnitStatus } from "./results.gen.ts";

export type {
  Check,
  ComponentValues,
  EvidenceBundle,
  Expectation,
  FleetRule,
  IsolatingPattern,
  Measurement,
  MetricCheck,
  NodeInventory,
  OutlierRule,
  Outcome,
  PartId,
  PreflightNode,
  PreflightProbe,
  PreflightProblem,
  PreflightResult,
  RankDeviceId,
  Remediation,
  SeriesPoint,
  TelemetrySummary,
  TransportCheck,
  TransportRule,
  TransportSummary,
  UnitResult,
  UnitStatus,
  Verdict,
} from "./results.gen.ts";

/**
 * What a test of each kind carries besides the common fields, by the kind's name:
 * `{ collective: { collective: CollectiveParams }, … }`. Empty here: each kind's own file adds its
 * entry by declaration merging (`declare module "../core/types.ts"`), so the core names no kind and
 * the kinds sit in the ring above it; lib/kinds/mod.ts checks the entries against KINDS.
 */
// biome-ignore lint/suspicious/noEmptyInterface: the kinds merge their entries into it
export interface KindBlocks {}

/** A test kind's name: the keys of the registry (lib/kinds/mod.ts). */
export type Kind = keyof KindBlocks;

/** One test's results in results.json, its kind one of the registry's. */
export type TestResult = Results.TestResult<Kind>;
/** results.json: everything one run measured and decided. */
export type ResultsFile = Results.ResultsFile<Kind>;

export const PATTERNS = ["ring", "pairwise", "bisect", "adaptive", "each-node"] as const;
export type Pattern = (typeof PATTERNS)[number];

/** What every test has, whatever its kind. */
export interface TestCommon {
  name: string;
  description?: string;
  nodes: number;
  gpusPerNode: number;
  /** ranks launched per node; defaults to gpusPerNode (or 2 on CPU suites that say so) */
  ranksPerNode: number;
  /** run the test on every node separately, one verdict per node */
  perNode: boolean;
  /** the test wrote `nodes:` itself: `--nodes` changes only the others */
  nodesSet?: boolean;
  /**
   * How the test covers the run's hosts: `ring` one run over `nodes` hosts (the default); `pairwise`,
   * `bisect` and `adaptive` run it on groups of hosts chosen to find a bad node (lib/isolate);
   * `each-node` is per-node mode. Absent where the suite does not say (and in specs built by hand):
   * per-node mode says which of ring and each-node it is (lib/core/pattern.ts patternOf).
   */
  pattern?: Pattern;
  /** `pattern: pairwise` with `pairs: k`: k rounds of random perfect matchings instead of all N−1 */
  pairs?: number;
  /** `onFailure: isolate`: a failed or hung ring test is bisected to the node(s) behind it */
  onFailure?: "isolate";
  /** `screen:` the suite's groups of hosts (racks, rails) that adaptive screening launches first */
  screen?: Array<{ name: string; nodes: string[] }>;
  timeoutMs: number;
  env: Record<string, string>;
  python: string;
  expect: Expectation[];
}

/**
 * One test with nothing left implicit: the common fields and its kind's block, keyed by the kind's
 * name (`{ kind: "collective", collective: CollectiveParams, … }`), so narrowing on `kind` gives the
 * block. The other kinds' blocks are absent, and typed so: `spec.inventory` reads undefined on a collective.
 */
export type TestSpec = { [K in Kind]: TestCommon & { kind: K } & KindBlocks[K] & { [O in Exclude<Kind, K>]?: undefined } }[Kind];

export interface Suite {
  name: string;
  description: string;
  cluster?: string;
  /** `redact:` env names whose values every output writes as *** (beside those that look secret: lib/core/redact.ts) */
  redact?: string[];
  /** the platform a plain `gpucheck suite` uses, and per-platform settings (validated by each plugin) */
  platform: { type: string; settings: Record<string, unknown> };
  /** queue/pending timeout for schedulers, ms */
  queueTimeoutMs: number;
  /** `defaults.eachNode`: every one-node test runs on each host of the run, a verdict per host (as --each-node) */
  eachNode?: boolean;
  /** `evidence:` the failed nodes' bundles: their size limit (bytes), the time the nodes have (ms), or `collect: false` for none */
  evidence?: { maxBytes?: number; timeout?: number; collect?: boolean };
  tests: TestSpec[];
  source: {
    path: string;
    sha256: string;
    builtin: boolean;
    /** the suites this one extends, nearest first: their bytes shape the suite too (certificates) */
    parents?: Array<{ path: string; sha256: string; builtin: boolean }>;
  };
}

/** What a test will launch, independent of where. */
export interface Launch {
  python: string;
  /** arguments after the interpreter, e.g. ["-m", "gpucheck_workload", "collective", ...] */
  args: string[];
  env: Record<string, string>;
  /** the names in env whose values are secret (lib/core/redact.ts): written as *** everywhere, sent to the ranks as they are */
  secret?: string[];
  /** workload files staged on every node, relative to the staging directory */
  files: string[];
}

export interface PlannedTest {
  name: string;
  kind: Kind;
  nodes: number;
  gpusPerNode: number;
  ranksPerNode: number;
  worldSize: number;
  perNode: boolean;
  timeoutMs: number;
  launch: Launch;
  expect: Expectation[];
  spec: TestSpec;
  /** which of the run's hosts the test uses; absent when the platform learns its nodes only at run time (k8s, slurm without a node list) */
  placement?: Placement;
  /** what runs together: one unit for the whole test, one per node in per-node mode (lib/core/planned-units.ts); an isolating pattern's first round */
  units: PlannedUnit[];
  /** `pattern: pairwise | bisect | adaptive` or `onFailure: isolate`: the hosts it isolates among and its rounds as far as the plan knows them */
  isolation?: PlannedIsolation;
  /** why the platform cannot run this test (lib/plan/not-runnable.ts): nothing is launched, the run records it as an error; units empty, rendered null */
  notRunnable?: string;
  /** the platform's rendering (ssh argv, sbatch script, container options, manifests): pure data */
  rendered: unknown;
}

/** An isolating pattern as planned (lib/plan/pattern.ts); later rounds depend on the verdicts of earlier ones. */
export interface PlannedIsolation {
  pattern: IsolatingPattern;
  /** set for `onFailure: isolate`: nothing of this runs unless the whole-cluster run fails or hangs */
  onFailure?: true;
  /** the hosts it isolates among */
  hosts: string[];
  pairs?: number;
  /** the random matchings' seed (`pairs: k`), the same at plan and run */
  seed: number;
  /** adaptive: the suite's groups (`screen:`), screened first instead of groups of about √N */
  screen?: Array<{ name: string; nodes: string[] }>;
  /** the rounds known before the run, each a list of unit names that run concurrently */
  rounds: Array<{ label: string; phase: string; units: string[] }>;
  /** the first pass's rounds and launches (lib/isolate plannedCount) */
  planned?: { rounds: number; launches: number };
  /** what the run decides on its own, in words */
  later: string;
}

/** One rank of a unit: `node` indexes the unit's `nodes`. */
export interface UnitRank {
  rank: number;
  localRank: number;
  node: number;
}

/**
 * A set of nodes run together, with its ranks: the whole test, one node (per-node mode), or any
 * other subset a pattern picks. A node the platform learns only at run time is a slot ("{{node0}}");
 * `eachNode`: the unit stands for one copy per node found at run time ("{{node}}" its name).
 */
export interface PlannedUnit {
  name: string;
  nodes: string[];
  ranks: UnitRank[];
  eachNode?: true;
}

export interface Placement {
  /** the hosts the test runs on (every host in per-node mode) */
  hosts: string[];
  /** the run's hosts it leaves idle */
  unused: string[];
  /** said on stderr when the suite starts: "test "x" runs on gpu01; gpu02 unused: …" */
  warning?: string;
}

export interface Plan {
  suite: { name: string; description: string; cluster?: string; path: string; sha256: string };
  platform: string;
  settings: Record<string, unknown>;
  /** the run's hosts, when known before it starts */
  hosts?: string[];
  /** hosts some test leaves unused, one line per test */
  warnings: string[];
  /** a suite with a fabric test: the sweep of the fabric's error counters the run takes before its first test, and the file it writes */
  fabricStart?: { command: string[]; file: string };
  /** the per-node units the platform runs at once (ssh and k8s maxParallel): a per-node test of more takes turns */
  perNodeWindow?: number;
  tests: PlannedTest[];
}

export interface RankLog {
  rank: number;
  host: string;
  path: string;
  exitCode: number | null;
}

export interface UnitRun {
  /** "all" for a whole-cluster test; the node name in per-node mode */
  unit: string;
  hosts: string[];
  status: UnitStatus;
  /** why, for anything but completed, e.g. "host 127.0.0.3: connection refused" */
  message?: string;
  startedAt: string;
  endedAt: string;
  ranks: RankLog[];
  /** rank 0's stdout (where the workload prints its results) */
  output: string;
  /** last lines of all ranks' logs, for JUnit system-out */
  tail: string;
  /** an infra unit: the hosts that stopped answering (unreachable, a connection lost mid-run), which an isolation holds against them */
  lost?: string[];
}
