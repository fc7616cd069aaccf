// Where ssh's ControlMaster sockets live for one run: the ssh platform's and docker's ssh engines'.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

// every directory made in this process (one exit listener for all, however many runs)
const made = new Set<string>();

/**
 * ControlPath sockets must fit in sun_path (108 bytes): a long $TMPDIR falls back to /tmp. The
 * caller removes the directory when its run ends; a process that exits first (a second Ctrl-C
 * exits at once) removes it on the way out, so no run leaves one in the user's /tmp.
 */
export function controlDirectory(): string {
  const base = tmpdir().length <= 40 ? tmpdir() : "/tmp";
  const dir = mkdtempSync(join(base, "gpucheck-ssh-"));
  if (made.size === 0) process.once("exit", () => made.forEach((d) => rmSync(d, { recursive: true, force: true })));
  made.add(dir);
  return dir;
}
