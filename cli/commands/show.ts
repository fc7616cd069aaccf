// `gpucheck show <suite>`: a built-in suite (or any file) as it runs: every extends merged in, each
// value followed by the file:line that set it and each threshold preceded by its source comment.
// The suite is checked first, so a broken one is reported as `validate` reports it (exit 2).
import { loadSuite, resolvedSuiteYaml } from "../../lib/load/mod.ts";
import { out } from "../output.ts";

export async function main(ref: string): Promise<number> {
  await loadSuite(ref);
  out(resolvedSuiteYaml(ref, { sources: true }));
  return 0;
}
