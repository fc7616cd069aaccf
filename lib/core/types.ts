// The data that flows through the pipeline:
//   suite.yaml → Suite → Plan → UnitRun[] → Measurement → Verdict → ResultsFile
// Everything here is plain data (JSON-serialisable) so plans and results can be printed,
// saved and re-judged without the code that produced them.
import type { IsolationVerdict, Pattern as IsolationPattern } from "./isolation.ts";
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

/** A threshold on one named metric. Values are stored in the metric's canonical unit. */
export interface Expectation {
  metric: string;
  /** canonical unit of the metric, e.g. "GB/s", "samples/s", "count", "ms", "%" */
  unit: string;
  min?: number;
  max?: number;
  /** message size in bytes for per-size metrics (busbw, algbw, time_us); default: the largest size */
  at?: number;
  /** relative threshold: measured ≥ ratio × baseline (with --baseline) */
  baselineRatio?: number;
  /** the metric is measured per component (a kind's componentMetrics): one check per part */
  perComponent?: true;
  /** per-component metrics only: each part against the median of its peers */
  outlier?: OutlierRule;
  /** `outlier:` on a metric with one value per unit: each node of a per-node test against the median of every node of the test */
  fleet?: FleetRule;
  /** the threshold as the user wrote it, for messages */
  text: string;
  /** metric "transport" only: the transports NCCL must have used, and those it must not have */
  transport?: TransportRule;
}

/**
 * `outlier: { below: 0.93 }`: a part fails when its value is under 0.93 × the median of the other
 * parts of its type in its unit (`over: unit`), or of every part of the test (`over: fleet`).
 * `above` for lower-is-better metrics: fails when over ratio × the median.
 */
export interface OutlierRule {
  side: "below" | "above";
  ratio: number;
  over: "unit" | "fleet";
}

/**
 * `busbw: { outlier: { over: fleet } }` in a per-node test: a node fails when its value lies more
 * than `k` scaled MADs from the median of the test's nodes on the bad side (`mad: k`, 3 by default),
 * or, with `below`/`above`, past that ratio to the median.
 */
export interface FleetRule {
  side: "below" | "above";
  k?: number;
  ratio?: number;
}

/** `transport: { require: [NET/IB, GDRDMA], forbid: [NET/Socket] }`, tokens from TRANSPORT_TOKENS (lib/core/metrics.ts) */
export interface TransportRule {
  require: string[];
  forbid: string[];
}

export const PATTERNS = ["ring", "pairwise", "bisect", "adaptive", "each-node"] as const;
export type Pattern = (typeof PATTERNS)[number];
export type IsolatingPattern = IsolationPattern;

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
  tests: PlannedTest[];
}

/** How one unit (the whole test, or one node in per-node mode) ended, as the platform saw it. */
export type UnitStatus =
  | "completed" // every rank exited 0
  | "failed" // a rank exited non-zero
  | "timeout"
  | "cancelled" // Ctrl-C / SIGTERM
  | "infra" // could not launch, host unreachable, job state NODE_FAIL …
  | "skipped" // node drained/down, not attempted
  | "unfinished"; // written ahead: the run had not ended it (a killed run leaves it so)

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

/** One component of a node (a GPU, a CPU standing in for one, a NIC, a GPU↔GPU link), named as a verdict must name it. */
export interface PartId {
  type: "gpu" | "cpu" | "nic" | "link" | "disk";
  host: string;
  rank?: number;
  /** nvidia-smi's GPU index (not torch's, which CUDA_VISIBLE_DEVICES renumbers) */
  index?: number;
  uuid?: string;
  pciBusId?: string;
  /** the GPU or CPU model, the NIC's device name (mlx5_0), a disk's path and device, or a link's two ends ("GPU 0 (GPU-…, 00000000:19:00.0)→GPU 3 (…)") */
  name?: string;
}

/** One component's own values, by per-component metric name (`gemm_bf16_tflops`, not `gemm_bf16_tflops_min`). */
export interface ComponentValues {
  part: PartId;
  metrics: Record<string, number | null>;
  /** metrics of this component whose source could not be read → why (their value is null) */
  unmeasured?: Record<string, string>;
  /** what lies behind a metric's value on this part (DCGM's failure text, how a NIC figure was taken), quoted when its check fails */
  details?: Record<string, string>;
  /** the tool that measured this part where a kind has more than one (nic: "perftest" or "nccl-p2p"), named in every check of it */
  source?: string;
  /** NCCL's account of this part's own run (a collective's rail): a `transport:` threshold is judged on each part that has one */
  transport?: TransportSummary;
}

export interface SeriesPoint {
  x: number;
  y: number;
}

export interface Measurement {
  /** scalar metrics: busbw (at the largest size), wrong, samples_per_s, … */
  metrics: Record<string, number | null>;
  /** per-size metrics for collectives, keyed by metric name: [size bytes, value] */
  bySize?: Record<string, Array<[number, number | null]>>;
  /** series for plots: training throughput over steps etc. */
  series?: Record<string, SeriesPoint[]>;
  /** the parsed output, kept whole in results.json (nccl table, train JSON, inventory) */
  raw?: unknown;
  /**
   * Metrics whose source could not be read, with the reason ("the kernel log could not be read:
   * dmesg: Operation not permitted"). Their value in `metrics` is null and any check on them is an
   * error: an unmeasured metric is never passed.
   */
  unmeasured?: Record<string, string>;
  /** the parts behind a metric's value ("mlx5_5 port 1 Down"), quoted when its check fails */
  details?: Record<string, string>;
  /** collectives on NCCL: NCCL's own account of the transports it used (lib/parsers/nccl-info.ts) */
  transport?: TransportSummary;
  /** kinds that measure each part on its own (gemm: every GPU): each part's values, judged part by part */
  components?: ComponentValues[];
  /** the device each rank ran on, as the per-GPU kinds report it: a GPU suite judges these before any threshold (lib/assess/devices.ts) */
  devices?: RankDeviceId[];
}

/** Who a rank was and what it ran on: a GPU by nvidia-smi's index, UUID and PCI bus, or a CPU. */
export interface RankDeviceId {
  rank: number;
  host: string;
  type: "cuda" | "cpu";
  /** the GPU's or CPU's model */
  name: string | null;
  index: number | null;
  uuid: string | null;
  pciBusId: string | null;
  /** on a GPU: why index, UUID or bus could not be read */
  unnamed?: string;
}

/** "unfinished": a planned test a run written ahead lists until it ends; a killed run leaves it so. */
export type Outcome = "passed" | "failed" | "error" | "skipped" | "unfinished";

/** A threshold on a number. */
export interface MetricCheck {
  metric: string;
  expectation: string;
  measured: number | null;
  expected: number;
  unit: string;
  ok: boolean;
  /** e.g. "busbw 182.3 GB/s at 8 GiB < 400 GB/s expected (-54%)" */
  message: string;
  /** a per-component check: the part it judged */
  part?: PartId;
  /** an outlier check: the median it was compared with, the value's ratio to it, and the parts behind the median */
  outlier?: { median: number; ratio: number; from: string[]; mad?: number };
  /** a missed check: what an operator does next, with its published source (lib/assess/remediation.ts) */
  remediation?: Remediation;
}

/** `transport:` against what NCCL said it used. */
export interface TransportCheck {
  metric: "transport";
  expectation: string;
  /** the transports NCCL used (keys of TransportSummary.transports); null when that is unknown (an error) */
  measured: string[] | null;
  expected: TransportRule;
  unit: "";
  ok: boolean;
  /** e.g. "transport: NET/Socket used, NET/IB required (connections: 16 × NET/Socket, 24 × P2P/IPC)" */
  message: string;
  /** a per-component check (one rail of a collective): the part it judged */
  part?: PartId;
  /** a missed check: what an operator does next, with its published source (lib/assess/remediation.ts) */
  remediation?: Remediation;
}

export type Check = MetricCheck | TransportCheck;

/** What to do about a missed check: a class of published operator practice, the action naming the part, its source. */
export interface Remediation {
  class: "reset-gpu" | "reboot-node" | "reseat-cable" | "reflash-firmware" | "reinstall-driver" | "reconfigure" | "rma-part" | "check-cooling" | "escalate-vendor";
  action: string;
  source: string;
}

export interface Verdict {
  outcome: Outcome;
  /** one line: the headline of why */
  reason: string;
  checks: Check[];
}

export interface TelemetrySummary {
  samples: number;
  /** the telemetry metrics (lib/core/metrics.ts TELEMETRY_METRICS) of this unit */
  metrics?: Record<string, number | null>;
  /** telemetry metrics whose source some node could not read → why */
  unmeasured?: Record<string, string>;
  /** the parts behind each telemetry metric (which GPU, port or link, which Xid) */
  details?: Record<string, string>;
  maxTempC: number | null;
  maxPowerW: number | null;
  meanUtilPct: number | null;
  throttleReasons: string[];
  xids: string[];
  series?: Record<string, SeriesPoint[]>;
  /** results.json of a test of many units: the file under the results directory that holds `series` (lib/report/write.ts) */
  seriesFile?: string;
}

export interface UnitResult {
  unit: string;
  hosts: string[];
  status: UnitStatus;
  message?: string;
  startedAt: string;
  endedAt: string;
  durationS: number;
  measurement: Measurement | null;
  verdict: Verdict;
  logs: string[];
  tail: string;
  telemetry?: TelemetrySummary;
  /** an infra unit: the hosts that stopped answering, by name */
  lost?: string[];
  /** a stand-in answered instead of the workload (its GPUCHECK_SIMULATED line): what it said it replayed */
  simulated?: string;
}

export interface TestResult {
  name: string;
  kind: Kind;
  perNode: boolean;
  nodes: number;
  gpusPerNode: number;
  worldSize: number;
  /** the workload command every rank ran and the environment the suite gave it (platforms add rank variables) */
  launch?: { command: string[]; env: Record<string, string> };
  expect: Expectation[];
  /** headline metric name and unit for tables, e.g. busbw GB/s */
  headline: { metric: string; unit: string };
  units: UnitResult[];
  outcome: Outcome;
  /** an isolating pattern (or `onFailure: isolate` after a failed run): which nodes are bad, with the evidence of every round */
  isolation?: IsolationVerdict;
  /** planned units (per-node: the nodes) whose result never came back from the platform; the test is then an error */
  missing?: string[];
}

export interface NodeInventory {
  hostname: string;
  gpus: Array<{
    index: number;
    name: string;
    uuid?: string;
    serial?: string;
    [k: string]: unknown;
  }>;
  driver?: string | null;
  cuda?: string | null;
  nccl?: string | null;
  torch?: string | null;
  [k: string]: unknown;
}

/** One thing preflight looked at on a node: its value, or null with why it could not be read. */
export interface PreflightProbe {
  /** "python", "torch", "torch.cuda.device_count", "NCCL", "nvidia-smi -L", "tool all_reduce_perf" */
  probe: string;
  /** the interpreter the probe ran under (probes of python, torch, CUDA and NCCL) */
  python?: string;
  /** false = looked and absent (NCCL not built in); null = could not look, see reason */
  value: string | number | boolean | null;
  /** the parts behind the value: GPU models, the path of a tool */
  detail?: string;
  reason?: string;
}

/** Preflight on one node: what it offers and whether that is what the suite's tests need. */
export interface PreflightNode {
  node: string;
  hosts: string[];
  /** how the preflight process ended, as the platform saw it */
  status: UnitStatus;
  message?: string;
  probes: PreflightProbe[];
  passed: boolean;
  problems: PreflightProblem[];
  logs: string[];
}

export interface PreflightProblem {
  /** one line naming what is missing, what was found and the tests that need it */
  message: string;
  /** the tests it keeps from running */
  tests: string[];
}

export interface PreflightResult {
  passed: boolean;
  startedAt: string;
  endedAt: string;
  nodes: PreflightNode[];
}

export interface ResultsFile {
  schemaVersion: 1;
  gpucheck: string;
  /** sha256: of suite.yaml as saved; sourceSha256: the suite file's own, where the copy's secrets were redacted */
  suite: { name: string; description: string; cluster?: string; path: string; sha256: string; sourceSha256?: string };
  platform: string;
  command: string[];
  startedAt: string;
  endedAt: string | null;
  /** false while running or when interrupted: finished tests are kept either way */
  complete: boolean;
  outcome: Outcome;
  tests: TestResult[];
  inventory: NodeInventory[];
  /** every node checked against what the tests need before the first test ran */
  preflight?: PreflightResult;
  baseline?: string;
  /** set by `gpucheck judge`: the suite whose thresholds gave these verdicts, when not the one that ran */
  judgedWith?: { path: string; sha256: string; at: string };
  /** set by `gpucheck judge`: the run whose measurements these are (its directory and results.json's sha256) */
  judgedFrom?: { path: string; sha256: string };
  /** set by `gpucheck judge --exclude-bad`: the nodes the run's isolating tests found bad, judged without (their other units skipped) */
  excluded?: string[];
  /** set by `gpucheck suite --rerun-failed`: the run whose failed, errored and skipped tests this one reran */
  rerunOf?: { path: string; sha256: string };
  /** why the run stopped before every test started ("--fail-fast: nccl-allreduce failed", "interrupted by Ctrl-C or SIGTERM") */
  stopped?: string;
  /** some units' answers came from a stand-in for the workload, not from the nodes: how many, and which stand-in */
  simulated?: string;
  /** each failed or errored node's evidence bundle (lib/evidence/): its archive, what it holds, what could not be collected and why */
  evidence?: EvidenceBundle[];
}

export interface EvidenceBundle {
  node: string;
  /** the archive, relative to the run directory (evidence/<node>.tar.gz); absent when nothing was packed */
  file?: string;
  bytes: number;
  collected: string[];
  missing: Array<{ item: string; why: string }>;
}

/** NCCL's own account of the transports a collective used (lib/parsers/nccl-info.ts reads it from NCCL_DEBUG=INFO). */
export interface TransportSummary {
  ncclVersion: string | null;
  /** "Using network X": IB, Socket, IBext_v8, AWS Libfabric … */
  network: string | null;
  /** external net plugin named by NCCL ("P2P plugin IBext_v8", "Loaded net plugin NCCL RDMA Plugin (v5)") */
  plugin: string | null;
  /**
   * connection lines per transport: P2P/IPC, P2P/CUMEM, P2P/direct, SHM, NET/IB, NET/Socket, NET/<plugin>;
   * GDRDMA counts the network connections with GPUDirect RDMA; NVLS is the NVLS channel count (1 when
   * NCCL set NVLS up without saying how many)
   */
  transports: Record<string, number>;
  /** HCAs NCCL opened, as it lists them ("mlx5_0:1/IB"), in order, once each */
  hcas: string[];
  /** NIC indices the network connections went through, per network ("IB/0", "Socket/3") */
  netDevices: string[];
  /** why GPUDirect RDMA was off, once per distinct text ("HCA 1 'mlx5_1' (no module)") */
  gdrDisabled: string[];
  /** NVLink SHARP multicast: true when NCCL said it is available, false when not, null when silent */
  nvlsAvailable: boolean | null;
  /** NVLS channels of the communicator ("16 nvls channels"); null when NCCL did not say */
  nvlsChannels: number | null;
  nRanks: number | null;
  nNodes: number | null;
  localRanks: number | null;
  /** the largest "N coll channels" any rank printed */
  collChannels: number | null;
  /** algorithms NCCL connected at init ("Connected all rings" → Ring, "… trees" → Tree, NVLS), in order seen */
  algorithms: string[];
  /** NCCL_* settings NCCL reported taking from the environment ("NCCL_ALGO set by environment to Ring") */
  settings: Record<string, string>;
  /** NCCL WARN texts, first few, once each */
  warnings: string[];
  /** NCCL INFO lines read */
  infoLines: number;
  /**
   * connection lines whose "via" wording gpucheck does not know (lib/parsers/nccl-wordings.ts): the
   * first few, and how many distinct ones; while any is here the transport is unmeasured
   */
  unclassified?: { lines: string[]; count: number };
  /**
   * the algorithm and protocol NCCL chose per call (its TUNING lines, rank 0), once per call, size and
   * choice, by size: what shows that NVLS served a size (lib/parsers/nccl-tuning.ts)
   */
  tuning?: Array<{ op: string | null; bytes: number; algo: string; proto: string }>;
}
