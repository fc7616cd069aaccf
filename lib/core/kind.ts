// What a test kind is: everything gpucheck knows about one `kind:` of test, in one object. The
// registry (./mod.ts) lists them; the loader, planner, preflight, judge, report and `gpucheck list`
// ask it instead of switching on the kind's name, so a new kind is one file plus one registry line.
import type { ZodType } from "./schema.ts";
import type { MetricInfo } from "./metrics.ts";
import type { PlotSpec } from "./plot-svg.ts";
import type { PathKey, Problem } from "./issues.ts";
import type { Measurement, MetricCheck, PlannedTest, TestResult, TestSpec, UnitResult } from "./types.ts";

export type Report = (path: PathKey[], message: string, where?: Problem["at"], also?: PathKey[][]) => void;
/** true when none of these fields failed to parse ("gpusPerNode" covers defaults.gpusPerNode) */
export type Sound = (...fields: string[]) => boolean;

/** What resolving a kind's block may look at besides the block itself. */
export interface ResolveContext {
  /** the test's path in the suite */
  testAt: PathKey[];
  gpusPerNode: number;
  /** where gpusPerNode was written (the test or defaults), for problems that involve it */
  gpusAt: PathKey[][];
  /** the test's timeout (test, else defaults, else 15 min): a kind that runs a tool with its own limit derives it */
  timeoutMs: number;
  report: Report;
  sound: Sound;
}

/** One key of the kind's block, as docs/reference/kinds.md and `gpucheck list` describe it. */
export interface KeyDoc {
  key: string;
  /** the default as text ("all_reduce", "8GiB (16MiB when gpusPerNode is 0)"); absent = none */
  default?: string;
  doc: string;
}

/** What a test of this kind needs from a node (lib/preflight/needs.ts fills in the rest). */
export interface KindNeeds {
  torch: boolean;
  gpus: number;
  gpuSource?: "torch" | "nvidia-smi";
  nccl: boolean;
  tools?: string[];
}

/** A kind that runs torch on every rank: on the GPUs when the test has them (and NCCL between them). */
export const torchOnEveryGpu = (t: PlannedTest): KindNeeds => ({ torch: true, gpus: t.gpusPerNode, nccl: t.gpusPerNode > 0 });

/**
 * One kind. `P` is its resolved block (CollectiveParams …); `Block` is what a TestSpec of this
 * kind carries besides the common fields: `{ collective: CollectiveParams }`.
 */
export interface TestKind<K extends string, P, Block extends object> {
  name: K;
  /** one line for `gpucheck list` and docs/reference/kinds.md */
  summary: string;
  /** the block as written (strict map of optional keys); built on first use */
  block: ZodType;
  /** the block's keys, for docs/reference/kinds.md */
  keys: KeyDoc[];
  /** ranks per node when neither the test nor defaults say; absent = gpusPerNode */
  ranksPerNode?: number;
  /** ranks per node however many the suite says (inventory describes a node: one process) */
  fixedRanksPerNode?: number;
  /** perNode when the test does not say */
  perNode: boolean;
  /** the kind always measures exactly this many nodes together (nic: a pair), so a pattern may only pair them */
  nodesPerRun?: number;
  /** the block as written (undefined when absent) → the TestSpec's block, with problems reported */
  resolve(block: Record<string, unknown> | undefined, ctx: ResolveContext): Block;
  /** the resolved block of a spec of this kind */
  params(spec: TestSpec): P | undefined;
  metrics: Record<string, MetricInfo>;
  /**
   * Metrics measured on each part on its own (`gemm_bf16_tflops` of every GPU), filled into
   * Measurement.components: a threshold on one gives a check per part, and may add `outlier:`.
   */
  componentMetrics?: Record<string, MetricInfo>;
  /** the metric shown first in tables */
  headline: string;
  /** the headline when it depends on the test's block (gemm: the first dtype the test asks for) */
  headlineFor?(params: P | undefined): string;
  /** a threshold on `metric` that this test's block can never produce: the problem, with the block key to point at */
  metricProblem?(metric: string, info: MetricInfo, params: P | undefined, sound: Sound): { message: string; key: string } | undefined;
  /** a `@size` threshold on a size this test never measures: the message */
  sizeProblem?(bytes: number, sizeText: string, key: string, params: P | undefined, sound: Sound): string | undefined;
  /**
   * The kind runs NCCL and keeps its account of the transports: `transport:` thresholds apply.
   * Returns why it cannot be known for this test (gloo), reported at the threshold.
   */
  transport?(params: P | undefined, ctx: { testAt: PathKey[]; gpusPerNode: number; gpusAt: PathKey[][]; sound: Sound }): { message: string; also: PathKey[][] } | undefined;
  /** the workload command after `-m gpucheck_workload` and the global flags */
  args(params: P | undefined): string[];
  /** the workload wants the global --inventory / --telemetry-interval flags (it is not itself the inventory) */
  telemetry: boolean;
  /**
   * Its workload joins a torch process group on "auto": the plan fixes the backend from the suite
   * (the global `--backend`: nccl when gpusPerNode > 0), so a rank that finds no GPU is an error, never gloo on a CPU.
   */
  processGroup?: boolean;
  /** rank 0's output (and every rank's log) → Measurement; ParseError when unusable */
  measure(output: string, ctx: { logs?: string[]; params: P | undefined }): Measurement;
  /** the kind's own plots (telemetry plots are added for every kind) */
  plots(test: TestResult, ctx: PlotContext): PlotSpec[];
  needs(t: PlannedTest, params: P | undefined): KindNeeds;
  /** after every unit of a test is measured: findings across units (inventory: settings that differ between nodes) */
  fleet?(measurements: Array<Measurement | null>, params: P | undefined): void;
  /** `gpucheck judge`: the saved measurements recounted against the judging suite's block */
  recount?(measurements: Array<Measurement | null>, params: P | undefined): Array<Measurement | null>;
  /** checks the kind always makes, whatever the thresholds (fabric: one per difference from the design) */
  checks?(m: Measurement): MetricCheck[];
  /**
   * The test runs no rank on the nodes: the run takes its reading where gpucheck runs
   * (lib/execute/here.ts), once per run, and the preflight asks nothing of the nodes for it.
   */
  runsHere?: boolean;
  /** what the kind's result schema (lib/kinds/results.ts) reads, for the schema's description */
  resultSource: string;
}

export interface PlotContext {
  id: (key: string) => string;
  series: (points: (u: UnitResult) => Array<[number, number | null]> | undefined) => PlotSpec["series"];
  /** a line plot of `metric`: its id, a linear x unless `spec` says otherwise, the metric's minimum as a dashed line */
  plot: (metric: string, spec: Omit<PlotSpec, "id" | "xScale"> & { xScale?: PlotSpec["xScale"] }) => PlotSpec;
}

// biome-ignore lint/suspicious/noExplicitAny: the registry holds kinds of different params
export type AnyKind = TestKind<string, any, object>;
