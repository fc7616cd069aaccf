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
 * It is the digest of workloadSums' listing, so a node recomputes it from its staged files with one
 * `sha256sum` over them and one over that listing (plugins/_shared/ssh/scripts.ts stageCheckLines):
 * a stage that does not hash to its own name is not what this binary carries.
 */
export function workloadHash(files?: ReadonlyMap<string, string>): string {
  if (files === undefined && typeof GPUCHECK_WORKLOAD_HASH === "string") return GPUCHECK_WORKLOAD_HASH;
  return sha256(sumsListing(workloadSums(files ?? workloadFiles()))).slice(0, 16);
}

/** Each file's SHA-256 (hex), by path in byte order (`LC_ALL=C sort`; the paths are ASCII, so code-unit order is byte order). */
export function workloadSums(files: ReadonlyMap<string, string>): Map<string, string> {
  const paths = [...files.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return new Map(paths.map((p) => [p, sha256(files.get(p)!)]));
}

/** The sums as `sha256sum` prints them: "<hex>  <path>\n" per file. */
export function sumsListing(sums: ReadonlyMap<string, string>): string {
  return [...sums].map(([p, h]) => `${h}  ${p}\n`).join("");
}

export function workloadExtras(): Map<string, string> {
  return new Map(Object.entries(WORKLOAD_FILES).filter(([p]) => !p.startsWith("gpucheck_workload/")));
}
