// The isolation patterns' data (issue 16): the groups of hosts a round launches, what each group
// measured, and the verdict that names the bad nodes with their evidence. Here in the core because
// results.json, the report and the certificate carry it; the patterns themselves are lib/isolate.

/** the patterns that run a test on changing groups of hosts to find a bad one */
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
  /** what the run isolated among, in order, and the random matchings' seed: enough to feed the rounds again (`gpucheck judge`) */
  run?: { hosts: string[]; seed: number; pairs?: number; screen?: Group[] };
}
