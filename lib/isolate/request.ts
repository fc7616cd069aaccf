// A launch a pattern wants, before the engine packs it into a round and lends it known-good nodes.
import type { JudgedGroup, Phase } from "./strategy.ts";

export interface Request {
  /** the group's name when it has more than two nodes (a pair is named by its nodes) */
  label: string;
  phase: Phase;
  /** the nodes under test */
  subjects: string[];
  /** known-good nodes to add */
  pads: number;
  /** not these as pads (a suspect's earlier partners); read when the request is placed */
  avoid?: ReadonlySet<string>;
  /** when the known-good nodes are too few for `pads`: launch with those there are, or wait for more */
  short: "launch" | "wait";
  done(entry: JudgedGroup, pads: string[]): void;
  /** the engine gives up on a request still waiting when nothing else can run */
  abandon?(): void;
  tries?: number;
}

export interface Planned {
  label: string;
  phase: Phase;
  requests: Request[];
}
