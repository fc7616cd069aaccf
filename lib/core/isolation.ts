// The isolation patterns' data (issue 16): the groups of hosts a round launches, what each group
// measured, and the verdict that names the bad nodes with their evidence. Here in the core because
// results.json, the report and the certificate carry it; the patterns themselves are lib/isolate.
// The verdict's shapes are results.json's, generated from its schema (results.gen.ts).
import type { Group, IsolatingPattern, IsolationVerdict, JudgedGroup, Phase } from "./results.gen.ts";

export type { Group, GroupStatus, IsolationVerdict, JudgedGroup, Judgement, NodeVerdict, PairEvidence, Phase } from "./results.gen.ts";

/** the patterns that run a test on changing groups of hosts to find a bad one */
export type Pattern = IsolatingPattern;

/** What one launch of a group measured (`value`: the test's headline value, null when not measured): a JudgedGroup before the judge. */
export type GroupResult = Pick<JudgedGroup, "group" | "status" | "value" | "unit" | "higher" | "message">;

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
