// `gpucheck baseline capture <results-dir> [--node NAME] [--out FILE]`: a golden node's versions as an
// inventory test's `baseline:` block (lib/baseline/capture.ts), printed or written to FILE.
import { writeFileSync } from "node:fs";
import { EXIT } from "../core/errors.ts";
import { asFileError, isErrnoError } from "../core/fs-error.ts";
import { readResults } from "../report/results.ts";
import { baselineYaml, captureBaseline } from "../baseline/capture.ts";
import type { Printer } from "./printer.ts";
import type { NodeInventory, ResultsFile } from "../core/types.ts";

/** The run's node inventories: what its tests' logs carried, and each inventory test's own (its raw result). */
function inventories(r: ResultsFile): NodeInventory[] {
  const byHost = new Map((r.inventory ?? []).map((i) => [i.hostname, i]));
  for (const t of r.tests.filter((x) => x.kind === "inventory"))
    for (const u of t.units) {
      const raw = u.measurement?.raw as NodeInventory | undefined;
      if (raw && typeof raw.hostname === "string") byHost.set(raw.hostname, raw);
    }
  return [...byHost.values()];
}

export function baselineCapture({ dir, flags, print }: { dir: string; flags: { node?: string; out?: string; json?: boolean }; print: Printer }): number {
  const { path, results } = readResults(dir);
  const c = captureBaseline(inventories(results), flags.node, path);
  const text = flags.json ? `${JSON.stringify(c, null, 2)}\n` : baselineYaml(c, path);
  if (flags.out === undefined) {
    print.out(text);
    return EXIT.ok;
  }
  try {
    writeFileSync(flags.out, text);
  } catch (e) {
    if (isErrnoError(e)) throw asFileError(e, { doing: "write the baseline", path: flags.out, option: "--out", mode: "write" });
    throw e;
  }
  print.out(
    `baseline of ${c.node}: ${Object.keys(c.baseline).length} fields written to ${flags.out}${Object.keys(c.left).length ? `; not captured: ${Object.keys(c.left).join(", ")}` : ""}\n`,
  );
  return EXIT.ok;
}
