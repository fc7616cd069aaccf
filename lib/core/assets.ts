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

// set by scripts/build.ts to this very function's answer for the files it embeds
declare const GPUCHECK_WORKLOAD_HASH: string;

/**
 * Content hash of the workload: platforms stage once per hash. The binary's embedded workload cannot
 * change after the build, which hashed it: `plan` and every run skip 4–5 ms of SHA-256 and the
 * collator's start (BENCHMARKS.md, start-up); run from the sources, it is hashed each time.
 */
export function workloadHash(files?: ReadonlyMap<string, string>): string {
  if (files === undefined && typeof GPUCHECK_WORKLOAD_HASH === "string") return GPUCHECK_WORKLOAD_HASH;
  const sorted = [...(files ?? workloadFiles())].sort(([a], [b]) => a.localeCompare(b));
  return sha256(sorted.map(([p, text]) => `${p}\0${text}\0`)).slice(0, 16);
}

export function workloadExtras(): Map<string, string> {
  return new Map(Object.entries(WORKLOAD_FILES).filter(([p]) => !p.startsWith("gpucheck_workload/")));
}
