// Temporary directories for tests. Each one is removed after the run by the afterAll that
// bunfig.toml preloads (test/preload.ts), so a run leaves /tmp as it found it; scripts/test.sh
// fails the run when something still does not.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const made = new Set<string>();

/** A new empty directory `<tmpdir>/<prefix>XXXXXX`, removed after the test run. */
export function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.add(dir);
  return dir;
}

/** A path a test creates beside a temporary directory (`${dir}-judged`), removed after the run too. */
export function removeAfterRun(path: string): string {
  made.add(path);
  return path;
}

/** Removes every directory tempDir made so far, and every path given to removeAfterRun. */
export function removeTempDirs(): void {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
  made.clear();
}
