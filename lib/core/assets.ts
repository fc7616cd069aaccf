// Built-in suites and the workload, embedded in the binary (see scripts/gen-assets.ts).
import { sha256 } from "./sha256.ts";
import { SUITE_FILES, WORKLOAD_FILES } from "./assets.gen.ts";

export interface BuiltinSuite {
  name: string;
  /** pseudo-path used in messages: builtin:<name>.yaml */
  path: string;
  text: string;
}

export function builtinSuites(): Map<string, BuiltinSuite> {
  const out = new Map<string, BuiltinSuite>();
  for (const [file, text] of Object.entries(SUITE_FILES)) {
    const name = file.replace(/\.yaml$/, "");
    out.set(name, { name, path: `builtin:${file}`, text });
  }
  return out;
}

/** The workload package files (relative path → content), excluding Docker/test material. */
export function workloadFiles(): Map<string, string> {
  return new Map(Object.entries(WORKLOAD_FILES).filter(([p]) => p.startsWith("gpucheck_workload/")));
}

/** Content hash of the workload: platforms stage once per hash. */
export function workloadHash(files: ReadonlyMap<string, string> = workloadFiles()): string {
  const sorted = [...files].sort(([a], [b]) => a.localeCompare(b));
  return sha256(sorted.map(([p, text]) => `${p}\0${text}\0`)).slice(0, 16);
}

export function workloadExtras(): Map<string, string> {
  return new Map(Object.entries(WORKLOAD_FILES).filter(([p]) => !p.startsWith("gpucheck_workload/")));
}
