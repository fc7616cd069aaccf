// Checks that belong to one file of an extends chain rather than to the merged suite: the same test
// name twice in one file (across files it means "override"), and `remove:` against the parent.
import { closest } from "../core/did-you-mean.ts";
import type { PathKey, Problem } from "../core/issues.ts";
import { show } from "../core/units.ts";
import { locate } from "./yaml-positions.ts";
import { isMap } from "./merge.ts";
import type { SourceFile } from "./read.ts";

/** A problem in file `file` of the chain (0 = the file the user named). */
export interface FileProblem extends Omit<Problem, "also"> {
  file: number;
}

export function duplicateNames(raw: Record<string, unknown>, file: number, src: SourceFile): FileProblem[] {
  const seen = new Map<string, number>();
  const out: FileProblem[] = [];
  if (!Array.isArray(raw.tests)) return out;
  raw.tests.forEach((t, i) => {
    if (!isMap(t) || typeof t.name !== "string") return;
    const first = seen.get(t.name);
    if (first === undefined) {
      seen.set(t.name, i);
      return;
    }
    const line = src.lines.linePos(locate(src.doc, ["tests", first, "name"], "value").offset).line;
    out.push({ file, path: ["tests", i, "name"], at: "value", message: `duplicate test name "${t.name}": first defined at line ${line}` });
  });
  return out;
}

/** `remove:` of a file against its parent's (merged) tests: the valid names, and problems. */
export function checkRemove(remove: unknown, parent: unknown, file: number, hasParent: boolean): { names: string[]; problems: FileProblem[] } {
  const problems: FileProblem[] = [];
  const report = (path: PathKey[], message: string, at: Problem["at"] = "value") => problems.push({ file, path, message, at });
  if (remove === undefined) return { names: [], problems };
  if (!hasParent) {
    report(["remove"], `"remove" needs "extends": there is no parent suite to remove tests from`, "key");
    return { names: [], problems };
  }
  if (!Array.isArray(remove)) {
    report(["remove"], `"remove" must be a list of test names of the parent suite, got ${show(remove)}`);
    return { names: [], problems };
  }
  const tests = isMap(parent) && Array.isArray(parent.tests) ? parent.tests : [];
  const known = tests.flatMap((t) => (isMap(t) && typeof t.name === "string" ? [t.name] : []));
  const names = remove.filter((name, i) => {
    if (typeof name === "string" && known.includes(name)) return true;
    const near = typeof name === "string" ? closest(name, known) : undefined;
    report(["remove", i], `remove ${show(name)} does not name a test of the parent suite${near ? `: did you mean "${near}"?` : `: its tests are ${known.join(", ")}`}`);
    return false;
  });
  return { names, problems };
}
