// Where ssh's ControlMaster sockets live for one run: the ssh platform's and docker's ssh engines'.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** ControlPath sockets must fit in sun_path (108 bytes): a long $TMPDIR falls back to /tmp. */
export function controlDirectory(): string {
  const base = tmpdir().length <= 40 ? tmpdir() : "/tmp";
  return mkdtempSync(join(base, "gpucheck-ssh-"));
}
