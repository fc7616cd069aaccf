// A fabric test's topology is a path relative to the suite file that writes it, like `extends:`. It is
// resolved and read here, at load, so `validate` and `plan` point at a path that does not exist, or a
// line of the topology gpucheck cannot read, with the suite's file and line.
import { readFileSync } from "node:fs";
import { isAbsolute, resolve } from "node:path";
import type { TestSpec } from "../core/types.ts";
import { parseTopology, TopologyError } from "../kinds/fabric/topology.ts";
import { isMap, originOf, type Tracked } from "./merge.ts";
import type { FileProblem } from "./per-file.ts";
import type { SourceFile } from "./read.ts";

export function resolveFabricPaths(merged: Tracked, files: SourceFile[], tests: TestSpec[], cwd: string): FileProblem[] {
  const problems: FileProblem[] = [];
  const raw = isMap(merged.value) && Array.isArray(merged.value.tests) ? merged.value.tests : [];
  raw.forEach((t, i) => {
    if (!isMap(t) || t.kind !== "fabric" || !isMap(t.fabric) || typeof t.fabric.topology !== "string" || t.fabric.topology === "") return;
    const spec = tests.find((s) => s.name === t.name);
    if (spec?.kind !== "fabric") return;
    const at = ["tests", i, "fabric", "topology"];
    const { origin } = originOf(merged.prov, at);
    const file = files[origin.file];
    const written = t.fabric.topology;
    const path = isAbsolute(written) ? written : resolve(file?.dir ?? cwd, written);
    spec.fabric.topologyPath = path;
    const problem = (message: string) => problems.push({ file: origin.file, path: origin.path, at: "value", message });
    let text: string;
    try {
      text = readFileSync(path, "utf8");
    } catch (e) {
      problem(
        `cannot read the fabric topology ${path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}; the path is relative to the suite file (write one with gpucheck fabric snapshot --out FILE)`,
      );
      return;
    }
    try {
      parseTopology(text, written);
    } catch (e) {
      if (e instanceof TopologyError) problem(e.message);
      else throw e;
    }
  });
  return problems;
}
