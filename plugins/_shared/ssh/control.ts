// Where ssh's ControlMaster sockets live for one run: the ssh platform's and docker's ssh engines'.
import { lstatSync, mkdtempSync, rmSync } from "node:fs";
import { PlatformError } from "../../../lib/core/errors.ts";
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
  // mkdtemp made it, 0700, under a fresh name; checked all the same before ssh puts its sockets there,
  // since whoever can reach a ControlMaster socket runs commands on every host as the operator
  const st = lstatSync(dir);
  if (!st.isDirectory() || st.uid !== (process.getuid?.() ?? st.uid) || (st.mode & 0o077) !== 0) {
    rmSync(dir, { recursive: true, force: true });
    throw new PlatformError(
      `the ssh ControlPath directory ${dir} is not this user's private directory (uid ${st.uid}, mode ${(st.mode & 0o777).toString(8)}): set TMPDIR to a directory of your own`,
    );
  }
  if (made.size === 0) process.once("exit", () => made.forEach((d) => rmSync(d, { recursive: true, force: true })));
  made.add(dir);
  return dir;
}
