// `gpucheck show <suite>`: a built-in suite (or any file) as it runs: every extends merged in, each
// value followed by the file:line that set it and each threshold preceded by its source comment.
// The suite is checked first, so a broken one is reported as `validate` reports it (exit 2).
import { loadSuite, resolvedSuiteYaml } from "../load/mod.ts";
import type { Printer } from "./printer.ts";
import type { PlatformRegistry } from "../core/platform.ts";

export async function showSuite({ ref, platforms, print }: { ref: string; platforms: PlatformRegistry; print: Printer }): Promise<number> {
  await loadSuite(ref, { platforms });
  print.out(resolvedSuiteYaml(ref, { sources: true }));
  return 0;
}
