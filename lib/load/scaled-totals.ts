// Warnings, not errors: a child suite that changes a test's nodes or GPUs while an absolute
// threshold on a total (samples_per_s of the whole job, gpu_count of a node) is inherited from the
// suite it extends. The suite is valid and runs, but the inherited floor was written for another
// number of GPUs: raising `nodes` to 2 keeps "samples_per_s ≥ 22,000 for 8 GPUs" without a word.
import type { Diagnostic } from "../core/errors.ts";
import { findMetric, isKindName, KINDS } from "../kinds/mod.ts";
import { SUITE_DEFAULTS } from "./schema.ts";
import { locate, type PathKey, position } from "./yaml-positions.ts";
import { isMap, originOf, type Tracked } from "./merge.ts";
import type { SourceFile } from "./read.ts";

interface Shape {
  nodes: number;
  gpus: number;
  perNode: boolean;
  /** where each value was written: the test's own key, else defaults */
  nodesAt: PathKey[];
  gpusAt: PathKey[];
}

/**
 * `levels[k]`: the suite merged from the root ancestor down to file k (levels[0] is the suite as it
 * runs). A threshold written in file k was written for the test's shape at levels[k].
 */
export function inheritedTotals(levels: Tracked[], files: SourceFile[]): Diagnostic[] {
  const final = levels[0]!;
  const tests = isMap(final.value) && Array.isArray(final.value.tests) ? final.value.tests : [];
  const warnings: Diagnostic[] = [];
  tests.forEach((t, i) => {
    if (!isMap(t) || !isMap(t.expect) || !isKindName(t.kind)) return;
    const now = shapeOf(final.value, t, i);
    if (!now) return;
    for (const [metric, th] of Object.entries(t.expect)) {
      const info = findMetric(t.kind, metric);
      if (!info?.total || !isMap(th) || (th.min === undefined && th.max === undefined)) continue;
      const written = originOf(final.prov, ["tests", i, "expect", metric]).origin;
      if (written.file === 0) continue;
      const level = levels[written.file]!.value;
      const j = isMap(level) && Array.isArray(level.tests) ? level.tests.findIndex((x) => isMap(x) && x.name === t.name) : -1;
      const then = j === -1 ? undefined : shapeOf(level, (level as { tests: Record<string, unknown>[] }).tests[j]!, j);
      if (!then) continue;
      const perJob = info.total === "job" && !now.perNode;
      const nodesChanged = perJob && now.nodes !== then.nodes;
      const gpusChanged = now.gpus !== then.gpus;
      if (!nodesChanged && !gpusChanged) continue;
      const describe = (s: Shape) => (perJob ? `${count(s.nodes, "node")} × ${count(s.gpus, "GPU")}` : `${count(s.gpus, "GPU")} per node`);
      const where = (path: PathKey[]) => {
        const o = originOf(final.prov, path);
        const f = files[o.origin.file]!;
        return { file: f, offset: locate(f.doc, [...o.origin.path, ...o.rest], "value").offset };
      };
      const thAt = where(["tests", i, "expect", metric]);
      const thLine = position(thAt.file.text, thAt.file.lines, thAt.offset).line;
      const changed = where(nodesChanged ? now.nodesAt : now.gpusAt);
      const p = position(changed.file.text, changed.file.lines, changed.offset);
      const scaled = perJob ? `${now.nodes * now.gpus} GPUs` : `${count(now.gpus, "GPU")} per node`;
      warnings.push({
        path: changed.file.display,
        ...p,
        message:
          `test "${t.name}" now runs on ${describe(now)}, but its ${metric} threshold ${written1(th)} (${thAt.file.display}:${thLine}) ` +
          `was written for ${describe(then)} and is an absolute total: override it for ${scaled}, or make it relative with "baseline"`,
      });
    }
  });
  return warnings;
}

function shapeOf(suite: unknown, t: Record<string, unknown>, i: number): Shape | undefined {
  const d = isMap(suite) && isMap(suite.defaults) ? suite.defaults : {};
  const pick = (key: "nodes" | "gpusPerNode"): [unknown, PathKey[]] =>
    t[key] !== undefined ? [t[key], ["tests", i, key]] : d[key] !== undefined ? [d[key], ["defaults", key]] : [SUITE_DEFAULTS[key], ["tests", i]];
  const [nodes, nodesAt] = pick("nodes");
  const [gpus, gpusAt] = pick("gpusPerNode");
  // CPU suites (gpusPerNode 0) and values that did not parse have errors of their own
  if (!Number.isInteger(nodes) || !Number.isInteger(gpus) || (gpus as number) <= 0) return undefined;
  return { nodes: nodes as number, gpus: gpus as number, perNode: t.perNode === undefined ? isKindName(t.kind) && KINDS[t.kind].perNode : t.perNode === true, nodesAt, gpusAt };
}

function count(n: number, what: string): string {
  return `${n} ${what}${n === 1 ? "" : "s"}`;
}

/** `{ min: 15400 img/s }`, as the suite wrote it */
function written1(th: Record<string, unknown>): string {
  return `{ ${Object.entries(th)
    .map(([k, v]) => `${k}: ${String(v)}`)
    .join(", ")} }`;
}
