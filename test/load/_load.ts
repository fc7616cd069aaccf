// Helpers for the loader tests: write suite files into a fresh directory and load them from there,
// so messages show the short relative paths a user would type.
import { writeFileSync, mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { expect, test } from "bun:test";
import { SuiteError } from "../../lib/core/errors.ts";
import { loadSuite } from "../../lib/load/mod.ts";
import type { Suite } from "../../lib/core/types.ts";
import { tempDir } from "../tmp.ts";

export function workdir(files: Record<string, string | Uint8Array> = {}): string {
  const dir = tempDir("gpucheck-load-");
  for (const [name, content] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, name)), { recursive: true });
    writeFileSync(join(dir, name), content);
  }
  return dir;
}

/** Loads `ref` from a directory holding `files`; returns the suite. */
export async function load(files: Record<string, string | Uint8Array>, ref = Object.keys(files)[0]): Promise<Suite> {
  return loadSuite(ref, { cwd: workdir(files) });
}

/** Loads and expects failure; returns exactly what the CLI prints (SuiteError.render()). */
export async function problems(files: Record<string, string | Uint8Array> | string, ref?: string): Promise<string> {
  const all = typeof files === "string" ? { "suite.yaml": files } : files;
  try {
    await load(all, ref ?? Object.keys(all)[0]);
  } catch (err) {
    if (err instanceof SuiteError) return err.render();
    throw err;
  }
  throw new Error("expected the suite to be rejected, but it loaded");
}

/** A minimal valid test, for cases about something else. */
export const INVENTORY = "  - { name: inv, kind: inventory }\n";

/**
 * One test per [title, yaml, expected output] case: the suite is rejected with exactly that text.
 * Both strings start with a newline for readability; it is not part of the file or the output.
 */
export function rejects(cases: Array<[string, string, string]>): void {
  for (const [title, yaml, out] of cases) {
    test(title, async () => {
      expect(await problems(yaml.slice(1))).toBe(out.slice(1, -1));
    });
  }
}
