// `gpucheck validate <suite>`: load and check a suite, run nothing. Problems are thrown as a
// SuiteError and printed by mod.ts like every other command's (exit 2), so `plan` and `suite`
// report a bad file exactly as `validate` does. Warnings go to stderr and leave the exit code 0.
import { formatWarning } from "../core/errors.ts";
import type { Printer } from "./printer.ts";
import type { PlatformRegistry } from "../core/platform.ts";
import { loadSuiteWarnings } from "../load/mod.ts";

export interface ValidateRequest {
  ref: string;
  flags: { json?: boolean };
  /** the platforms a suite may name (cli/platforms.ts) */
  platforms: PlatformRegistry;
  print: Printer;
}

export async function validateSuite({ ref, flags, platforms, print }: ValidateRequest): Promise<number> {
  const { out, err } = print;
  const { suite, warnings } = await loadSuiteWarnings(ref, { platforms });
  for (const w of warnings) err(`${formatWarning(w)}\n`);
  const parents = suite.source.parents?.map((p) => p.path) ?? [];
  if (flags.json) {
    const doc = {
      valid: true,
      path: suite.source.path,
      sha256: suite.source.sha256,
      name: suite.name,
      platform: suite.platform.type,
      extends: parents,
      tests: suite.tests.map((t) => ({ name: t.name, kind: t.kind, nodes: t.nodes, gpusPerNode: t.gpusPerNode })),
      warnings: warnings.map(({ path, line, col, message }) => ({ path, line, col, message })),
    };
    out(`${JSON.stringify(doc, null, 2)}\n`);
    return 0;
  }
  const kinds = new Map<string, number>();
  for (const t of suite.tests) kinds.set(t.kind, (kinds.get(t.kind) ?? 0) + 1);
  const counts = [...kinds].map(([kind, n]) => `${n} ${kind}`).join(", ");
  const n = suite.tests.length;
  const w = warnings.length ? `; ${warnings.length} warning${warnings.length === 1 ? "" : "s"}` : "";
  out(
    `${suite.source.path}: valid: suite "${suite.name}", ${n} test${n === 1 ? "" : "s"} (${counts}), platform ${suite.platform.type}${parents.length ? `, extends ${parents.join(" → ")}` : ""}${w}\n`,
  );
  return 0;
}
