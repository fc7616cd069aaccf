// The ControlPath directory (ssh's ControlMaster sockets, through which commands run on every host as
// the operator) is made by mkdtemp for each run and checked: this user's, mode 0700, not a symlink.
import { expect, test } from "bun:test";
import { lstatSync, rmSync } from "node:fs";
import { controlDirectory } from "../../plugins/_shared/ssh/control.ts";

test("a fresh private directory per run, never a guessable or shared one", () => {
  const old = process.umask(0);
  try {
    const a = controlDirectory();
    const b = controlDirectory();
    try {
      expect(a).not.toBe(b);
      for (const d of [a, b]) {
        const st = lstatSync(d);
        expect(st.isDirectory()).toBe(true);
        expect(st.mode & 0o777).toBe(0o700);
        expect(st.uid).toBe(process.getuid!());
        expect(d).toMatch(/\/gpucheck-ssh-[A-Za-z0-9]{6}$/);
      }
    } finally {
      rmSync(a, { recursive: true, force: true });
      rmSync(b, { recursive: true, force: true });
    }
  } finally {
    process.umask(old);
  }
});
