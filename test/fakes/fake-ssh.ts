// The fake ssh client of the unit tier (test/fakes/ssh.sh) installed under a scratch root and put
// first on $PATH, as `ssh`: the ssh platform spawns "ssh" through PATH, so it runs unchanged.
import { chmodSync, copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../tmp.ts";

/**
 * ssh's stderr for faults a local shell cannot produce. Not captured from a daemon here (this
 * session could not start sshd): rebuilt from the messages test/integration/platforms/ssh-faults.test.ts
 * asserts against the real sshd's of test/infra/ssh.sh (OpenSSH ends each line with ".\r\n").
 */
export const SSH_STDERR = {
  refused: (host: string) => `ssh: connect to host ${host} port 2722: Connection refused\r\n`,
  unknownHostKey: (host: string) => `No ED25519 host key is known for [${host}]:2722 and you have requested strict checking.\r\nHost key verification failed.\r\n`,
  permissionDenied: (login: string) => `${login}: Permission denied (publickey).\r\n`,
};

export interface FakeSsh {
  root: string;
  /** the scratch directory that is host `name`'s $HOME */
  home(name: string): string;
  /** every later ssh to `host` fails with this stderr and exit code 255 */
  fail(host: string, stderr: string): void;
  /** "<host> <remote command's name>" (or "<host> -O exit") for each command that reached a host, and forgets them */
  takeCalls(): string[];
  /** restores $PATH */
  uninstall(): void;
}

export function installFakeSsh(): FakeSsh {
  const root = tempDir("gpucheck-fakessh-");
  for (const d of ["bin", "hosts", "faults"]) mkdirSync(join(root, d));
  copyFileSync(join(import.meta.dir, "ssh.sh"), join(root, "bin", "ssh"));
  chmodSync(join(root, "bin", "ssh"), 0o755);
  const saved = process.env.PATH;
  process.env.PATH = `${join(root, "bin")}:${saved}`;
  return {
    root,
    home: (name) => join(root, "hosts", name),
    fail: (host, stderr) => writeFileSync(join(root, "faults", host), stderr),
    takeCalls: () => {
      const file = join(root, "calls");
      const text = existsSync(file) ? readFileSync(file, "utf8") : "";
      rmSync(file, { force: true });
      return text.split("\n").filter(Boolean);
    },
    uninstall: () => {
      process.env.PATH = saved;
    },
  };
}
