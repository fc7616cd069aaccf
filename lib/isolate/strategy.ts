// The common interface of the isolation patterns (issue 16): a pattern is a state machine the
// executor drives round by round, and a verdict that names the bad nodes with their evidence.
// Pure data in, pure data out: the executor launches each round's groups concurrently and feeds
// back what it measured; nothing here touches the world.

// The data a round and a verdict are made of lives in the core (results.json, the report and the
// certificate carry it); the options are the planner's own.
import type { Group } from "../core/isolation.ts";
export type {
  Group,
  GroupResult,
  GroupStatus,
  Isolation,
  IsolationVerdict,
  JudgedGroup,
  Judgement,
  NodeVerdict,
  PairEvidence,
  Pattern,
  Phase,
  Round,
} from "../core/isolation.ts";

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
  /** rack or rail groups named by the suite (`screen:`): adaptive screens these instead of groups of about √N */
  groups?: Group[];
  /**
   * The test's absolute bound on the headline value (its min when higher is better, its max when
   * lower is): when set, a group is judged against it and the relative rule is off.
   */
  floor?: number;
}
