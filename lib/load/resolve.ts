// One test (as far as it parsed) + the suite's defaults → a TestSpec with nothing left implicit,
// plus the problems only visible when fields are seen together (ranks vs GPUs, data vs model …).
// A check is skipped when a field it reads did not parse: that field already has its message.
import { KINDS, KIND_NAMES } from "../kinds/mod.ts";
import type { Report, Sound } from "../core/kind.ts";
import { type DefaultsInput, type PathKey, type Problem, SUITE_DEFAULTS, type TestInput } from "./schema.ts";
import type { TestSpec } from "../core/types.ts";
import { resolveExpect } from "./expect.ts";
import { resolvePattern } from "./pattern.ts";
import type { AnyKind } from "../core/kind.ts";

export type { Sound } from "../core/kind.ts";

export function resolveTest(t: TestInput, d: DefaultsInput, at: PathKey[], broken: ReadonlySet<string> = new Set()): { spec: TestSpec; problems: Problem[] } {
  const problems: Problem[] = [];
  const report: Report = (path, message, where = "value", also = []) => problems.push({ path, message, at: where, ...(also.length && { also }) });
  const sound: Sound = (...fields) => fields.every((f) => !broken.has(f) && !broken.has(`defaults.${f}`) && !broken.has(f.split(".")[0]));
  // where a value came from: the test, else `defaults:`, else the test as a whole
  const from = (key: keyof TestInput & keyof DefaultsInput): PathKey[] => (t[key] !== undefined ? [...at, key] : d[key] !== undefined ? ["defaults", key] : at);
  const gpusAt = t.gpusPerNode !== undefined || d.gpusPerNode !== undefined ? [from("gpusPerNode")] : [];

  const gpusPerNode = t.gpusPerNode ?? d.gpusPerNode ?? SUITE_DEFAULTS.gpusPerNode;
  const kind = KINDS[t.kind];
  let ranksPerNode = t.ranksPerNode ?? d.ranksPerNode ?? kind.ranksPerNode ?? gpusPerNode;
  const ranksKnown = sound("gpusPerNode", "ranksPerNode");
  if (ranksPerNode === 0) {
    if (ranksKnown && !broken.has("?") && !broken.has("defaults.?"))
      report(at, `"ranksPerNode" is required when "gpusPerNode" is 0: how many CPU ranks to start on each node`, "map");
    ranksPerNode = 1;
  } else if (ranksKnown && gpusPerNode > 0 && ranksPerNode > gpusPerNode) {
    report(from("ranksPerNode"), `"ranksPerNode" (${ranksPerNode}) must not exceed "gpusPerNode" (${gpusPerNode}): each rank drives one GPU`, "value", gpusAt);
  }
  // a kind read where gpucheck runs (fabric) runs once and on no node: where and how many nodes mean nothing to it
  if ((kind as AnyKind).runsHere) {
    for (const key of ["nodes", "perNode", "pattern", "pairs", "onFailure", "screen"] as const) {
      if (t[key] !== undefined) report([...at, key], `"${key}" does not apply to kind "${t.kind}": it runs once per run where gpucheck runs, on no node; remove it`, "key");
    }
  }
  for (const block of KIND_NAMES) {
    if (t[block] !== undefined && t.kind !== block) report([...at, block], `"${block}" does not apply to kind "${t.kind}"`, "key", [[...at, "kind"]]);
  }

  const written = t[t.kind] as Record<string, unknown> | undefined;
  const timeoutMs = t.timeout ?? d.timeout ?? SUITE_DEFAULTS.timeoutMs;
  const block = kind.resolve(written as never, { testAt: at, gpusPerNode, gpusAt, timeoutMs, report, sound });
  const expect = resolveExpect(t.expect ?? {}, t.kind, Object.values(block)[0], [...at, "expect"], problems, sound, { perNode: gpusPerNode, at: gpusAt });

  // the union's kind and block come from the same registry entry, which TypeScript cannot follow
  const spec = {
    name: t.name,
    kind: t.kind,
    ...(t.description !== undefined && { description: t.description }),
    nodes: t.nodes ?? d.nodes ?? SUITE_DEFAULTS.nodes,
    ...(t.nodes !== undefined && { nodesSet: true }),
    gpusPerNode,
    ranksPerNode,
    ...resolvePattern(t, kind as AnyKind, at, report),
    timeoutMs,
    env: { ...d.env, ...t.env },
    python: t.python ?? d.python ?? SUITE_DEFAULTS.python,
    ...block,
    expect,
  } as TestSpec;
  return { spec, problems };
}
