// Which pattern a test runs with, for specs where the suite did not write one.
import type { IsolatingPattern, Pattern, TestSpec } from "./types.ts";

export function patternOf(spec: Pick<TestSpec, "pattern" | "perNode">): Pattern {
  return spec.pattern ?? (spec.perNode ? "each-node" : "ring");
}

/** the patterns that run the test on changing groups of hosts to find a bad one */
export function isolating(p: Pattern): p is IsolatingPattern {
  return p === "pairwise" || p === "bisect" || p === "adaptive";
}
