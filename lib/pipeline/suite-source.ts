// The exact bytes of the suite a run used, kept beside its results.
import { readFileSync } from "node:fs";
import { builtinSuites } from "../core/assets.ts";
import type { Suite } from "../core/types.ts";

export function suiteText(suite: Suite): string {
  if (suite.source.builtin) {
    const name = suite.source.path.replace(/^builtin:/, "").replace(/\.yaml$/, "");
    return builtinSuites().get(name)?.text ?? "";
  }
  return readFileSync(suite.source.path, "utf8");
}
