// `gpucheck validate <suite>`: load and check a suite, run nothing. Problems are thrown as a
// SuiteError and printed by mod.ts like every other command's (exit 2), so `plan` and `suite`
// report a bad file exactly as `validate` does.
import { out } from "../output.ts";
import { loadSuite } from "../load.ts";

export async function main(ref: string): Promise<number> {
  const suite = await loadSuite(ref);
  const kinds = new Map<string, number>();
  for (const t of suite.tests) kinds.set(t.kind, (kinds.get(t.kind) ?? 0) + 1);
  const counts = [...kinds].map(([kind, n]) => `${n} ${kind}`).join(", ");
  const parents = suite.source.parents?.map((p) => p.path).join(" → ");
  const n = suite.tests.length;
  out(
    `${suite.source.path}: valid: suite "${suite.name}", ${n} test${n === 1 ? "" : "s"} (${counts}), platform ${suite.platform.type}${parents ? `, extends ${parents}` : ""}\n`,
  );
  return 0;
}
