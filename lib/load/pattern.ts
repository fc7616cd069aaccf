// A test's `pattern:` with the keys that go with it (`pairs`, `onFailure`), checked against the
// test's kind and node count. The patterns themselves (which hosts meet in which round) are
// lib/isolate's; here is only what a suite may combine.
import type { AnyKind, Report } from "../core/kind.ts";
import { isolating, patternOf } from "../core/pattern.ts";
import { getPlatform, type PlatformRegistry } from "../core/platform.ts";
import type { Pattern, TestCommon, TestSpec } from "../core/types.ts";
import type { PathKey, Problem } from "./schema.ts";
import type { PlatformBlock } from "./schema/platform.ts";
import type { TestInput } from "./schema/test.ts";

type Resolved = Pick<TestCommon, "perNode"> & Partial<Pick<TestCommon, "pattern" | "pairs" | "onFailure" | "screen">>;

/** The pattern, and the per-node mode it implies, with a problem reported at each key that conflicts. */
export function resolvePattern(t: TestInput, kind: AnyKind, at: PathKey[], report: Report): Resolved {
  const pattern: Pattern = t.pattern ?? ((t.perNode ?? kind.perNode) ? "each-node" : "ring");
  const named = `"pattern: ${pattern}"`;
  if (t.pattern === "ring" && t.perNode === true) {
    report([...at, "perNode"], `"perNode: true" contradicts ${named}, which runs the test once over "nodes" hosts`, "key", [[...at, "pattern"]]);
  }
  if (pattern === "each-node") {
    if (t.perNode === false) report([...at, "perNode"], `"perNode: false" contradicts ${named}, which runs the test on every node separately`, "key", [[...at, "pattern"]]);
    // only where the pattern is written: `perNode: true` beside `nodes: 4` has always meant every host, one at a time
    if (t.pattern === "each-node" && t.nodes !== undefined && t.nodes > 1)
      report([...at, "nodes"], `${named} runs the test on one node at a time: "nodes" must be 1, got ${t.nodes}`);
  }
  if (pattern === "pairwise" || pattern === "bisect" || pattern === "adaptive") {
    if (kind.perNode) {
      report([...at, "pattern"], `${named} does not apply to kind "${kind.name}", which measures one node at a time: use "pattern: each-node"`, "value", [[...at, "kind"]]);
    } else if (t.perNode === true) {
      report([...at, "perNode"], `"perNode: true" contradicts ${named}, which runs the test on groups of nodes`, "key", [[...at, "pattern"]]);
    }
    if (t.nodes !== undefined) {
      report([...at, "nodes"], `"nodes" does not apply with ${named}: the pattern picks the nodes of each run from every host of the run`, "key", [[...at, "pattern"]]);
    }
    if (pattern !== "pairwise" && kind.nodesPerRun === 2) {
      report([...at, "pattern"], `${named} does not apply to kind "${kind.name}", which measures exactly two nodes: use "pattern: pairwise"`, "value", [[...at, "kind"]]);
    }
  }
  if (t.pairs !== undefined && pattern !== "pairwise") {
    report([...at, "pairs"], `"pairs" applies only with "pattern: pairwise" (k rounds of random pairs instead of all N−1), not with ${named}`, "key");
  }
  if (t.screen !== undefined && pattern !== "adaptive" && !(pattern === "ring" && t.onFailure !== undefined)) {
    report([...at, "screen"], `"screen" applies only with "pattern: adaptive" or "onFailure: isolate" (the groups screened first, then bisected), not with ${named}`, "key", [
      [...at, "pattern"],
    ]);
  }
  if (t.onFailure !== undefined) {
    if (pattern !== "ring") {
      report(
        [...at, "onFailure"],
        `"onFailure: isolate" applies only to "pattern: ring": ${named} ${pattern === "each-node" ? "judges every node on its own" : "isolates by itself"}`,
        "key",
      );
    } else if (kind.perNode || t.perNode === true) {
      report([...at, "onFailure"], `"onFailure: isolate" needs a test over several nodes: kind "${kind.name}" runs on every node separately`, "key");
    } else if (kind.nodesPerRun === 2) {
      report([...at, "onFailure"], `"onFailure: isolate" does not apply to kind "${kind.name}", which measures exactly two nodes: use "pattern: pairwise"`, "key");
    } else if (t.nodes === 1) {
      report([...at, "onFailure"], `"onFailure: isolate" needs a test over several nodes: "nodes" is 1`, "key", [[...at, "nodes"]]);
    }
  }
  return {
    ...(t.pattern !== undefined && { pattern }),
    perNode: pattern === "each-node",
    ...(t.pairs !== undefined && { pairs: t.pairs }),
    ...(t.onFailure !== undefined && { onFailure: t.onFailure }),
    ...(t.screen !== undefined && { screen: t.screen }),
  };
}

/**
 * An isolating test on the suite's platform whose settings rule out a round's groups: pointed at
 * the test's key and at the setting, before anything is planned.
 */
export function groupsRefused(spec: TestSpec, at: PathKey[], block: PlatformBlock, registry?: PlatformRegistry): Problem | undefined {
  const onFailure = spec.onFailure === "isolate" && patternOf(spec) === "ring";
  if (!onFailure && !isolating(patternOf(spec))) return undefined;
  const settings = block.settings[block.type];
  const refused = settings === undefined ? undefined : getPlatform(block.type, registry)?.groupsRefused?.(settings);
  if (!refused) return undefined;
  const key = onFailure ? "onFailure" : "pattern";
  const named = onFailure ? '"onFailure: isolate"' : `"pattern: ${spec.pattern}"`;
  return {
    path: [...at, key],
    at: "value",
    message: `${named} runs groups of nodes side by side, which platform "${block.type}" with ${refused.why}`,
    also: [["platform", block.type, refused.key]],
  };
}
