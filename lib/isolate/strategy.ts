// The common interface of the isolation patterns (issue 16): a pattern is a state machine the
// executor drives round by round, and a verdict that names the bad nodes with their evidence.
// Pure data in, pure data out: the executor launches each round's groups concurrently and feeds
// back what it measured; nothing here touches the world.

export type Pattern = "pairwise" | "bisect" | "adaptive";

/** One launch of the test over a group of nodes (2 for a pair, more for a group or a half). */
export interface Group {
  /** nodes joined by "+" for a pair ("gpu01+gpu07"); a short label for a larger group ("half-1.2", "screen-3") */
  name: string;
  nodes: string[];
}

/** `error` is the infrastructure's fault (a launch that never ran): no evidence against the nodes. */
export type GroupStatus = "passed" | "failed" | "timeout" | "error";

export interface GroupResult {
  group: Group;
  status: GroupStatus;
  /** the test's headline value; null when it was not measured */
  value: number | null;
  unit?: string;
  higher: boolean;
  message?: string;
}

export type Phase = "screen" | "pairwise" | "second-pass" | "bisect" | "confirm" | "boundary";

/** A step: the groups of one round, run concurrently; no node appears twice in a round. */
export interface Round {
  label: string;
  phase: Phase;
  groups: Group[];
}

export interface Isolation {
  /** the round to launch now (the same one again until it is fed); undefined when done */
  next(): Round | undefined;
  /** the results of the round next() returned last, one per group */
  feed(results: GroupResult[]): void;
  /** final once next() returned undefined; callable any time for partial results (Ctrl-C) */
  verdict(): IsolationVerdict;
}

/** How a group counts against its nodes: `unjudged` (an error, or no value to compare) is no evidence either way. */
export type Judgement = "good" | "bad" | "unjudged";

export interface PairEvidence {
  group: string;
  /** the other nodes of the group; empty for a group of more than 16 (its nodes are in the verdict's `groups`) */
  partners: string[];
  status: GroupStatus;
  value: number | null;
  /** what the value was held against: the best comparable group (relative), the floor, or null */
  reference: number | null;
  /** value / reference; null without either */
  ratio: number | null;
  phase: Phase;
}

export interface NodeVerdict {
  node: string;
  verdict: "good" | "bad" | "suspect-unconfirmed" | "untested";
  reason: string;
  evidence: PairEvidence[];
}

/** A launched group with the round it ran in and how it was judged. */
export interface JudgedGroup extends GroupResult {
  phase: Phase;
  round: number;
  judged: Judgement;
  reference: number | null;
  ratio: number | null;
  /** why it was judged so, in words */
  why: string;
}

export interface IsolationVerdict {
  pattern: Pattern;
  nodes: NodeVerdict[];
  bad: string[];
  /** pairs that fail together while each node passes with others: neither node is bad ("gpu01+gpu07") */
  badPairs: string[];
  /** failures nothing explained (a group failed, no node or pair in it was found bad), in words */
  unresolved: string[];
  rounds: number;
  launches: number;
  groups: JudgedGroup[];
  /** the rule applied, in words, with its source */
  rule: string;
  /** false for a partial verdict (the isolation was stopped before it finished) */
  complete: boolean;
}

export interface IsolationOptions {
  /** k rounds of random perfect matchings instead of all N−1 rounds of the circle method */
  pairs?: number;
  /** the seed of the random matchings (default 1) */
  seed?: number;
  /** relative rule, bandwidth: bad below this × the best comparable group (default 0.93) */
  outlierBelow?: number;
  /** relative rule, latency: bad above this × the lowest comparable group (default 2.1) */
  latencyAbove?: number;
  /** healthy partners each suspect is re-tested with (default 2) */
  confirmPartners?: number;
  /** rack or rail groups named by the suite: adaptive screens these instead of groups of about √N */
  groups?: string[][];
  /**
   * The test's absolute bound on the headline value (its min when higher is better, its max when
   * lower is): when set, a group is judged against it and the relative rule is off.
   */
  floor?: number;
}
