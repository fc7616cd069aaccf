// scripts/apt-install.sh (and cpu-smoke.sh through it) waits while another apt holds the package
// lock, saying who holds it, instead of failing at once; bounded, it gives up with one line. The
// lock is a real one: a file held open by `flock` for a few seconds, as apt holds its lock files.
import { expect, test } from "bun:test";
import { chmodSync, readdirSync, readFileSync, readlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../tmp.ts";

const root = join(import.meta.dir, "..", "..");

/** A lock file held by `flock FILE sleep S` in the background; resolves with its pid once the lock is held. */
async function holdLock(file: string, seconds: number) {
  writeFileSync(file, "");
  const holder = Bun.spawn(["flock", file, "sleep", String(seconds)], { stdout: "ignore", stderr: "ignore" });
  // flock opens the file at once: wait until /proc shows it
  const holds = () => {
    try {
      return readdirSync(`/proc/${holder.pid}/fd`).some((fd) => readlinkSync(`/proc/${holder.pid}/fd/${fd}`) === file);
    } catch {
      return false;
    }
  };
  for (let i = 0; i < 100 && !holds(); i++) await Bun.sleep(50);
  expect(holds()).toBe(true);
  return holder;
}

test("another apt holding the lock: apt-install.sh waits, names the holder's pid, then installs once it is gone", async () => {
  const dir = tempDir("gpucheck-apt-lock-");
  const lock = join(dir, "lock-frontend");
  // apt-get and dpkg-query stand-ins: the package is missing, and "installing" records when it ran
  const bin = join(dir, "bin");
  Bun.spawnSync(["mkdir", bin]);
  writeFileSync(join(bin, "dpkg-query"), "#!/bin/sh\nexit 1\n");
  writeFileSync(join(bin, "apt-get"), `#!/bin/sh\ndate +%s.%N >> ${join(dir, "installed")}\n`);
  for (const f of ["dpkg-query", "apt-get"]) chmodSync(join(bin, f), 0o755);
  const holder = await holdLock(lock, 3);
  const started = Date.now();
  const r = Bun.spawnSync(["bash", join(root, "scripts", "apt-install.sh"), "python3-torch"], {
    env: { ...process.env, PATH: `${bin}:${process.env.PATH}`, APT_LOCK_FILES: lock, APT_LOCK_NOTE_S: "1" },
  });
  await holder.exited;
  const stderr = r.stderr.toString();
  expect(r.exitCode).toBe(0);
  expect(stderr).toContain(`[apt-install] waiting for the package lock (`);
  expect(stderr).toMatch(new RegExp(`held by pid ${holder.pid} \\(flock ${lock} sleep 3\\) on ${lock}`));
  // it installed, and only after the holder let go
  const installedAt = Number(readFileSync(join(dir, "installed"), "utf8").trim().split("\n")[0]) * 1000;
  expect(installedAt - started).toBeGreaterThanOrEqual(2500);
}, 30_000);

test("a lock held past the bound: one line naming the holder, exit 1, nothing installed", async () => {
  const dir = tempDir("gpucheck-apt-lock-");
  const lock = join(dir, "lock");
  const holder = await holdLock(lock, 6);
  const r = Bun.spawnSync(["bash", "-c", `. ${join(root, "scripts", "apt-lock.sh")}; wait_for_apt_lock`], {
    env: { ...process.env, APT_LOCK_FILES: lock, APT_LOCK_WAIT_S: "2", APT_LOCK_NOTE_S: "30" },
  });
  const lines = r.stderr.toString().trimEnd().split("\n");
  expect(r.exitCode).toBe(1);
  expect(lines).toHaveLength(2);
  expect(lines[0]).toMatch(/^\[apt-install\] waiting for the package lock \(\d s of at most 2 s\), held by pid \d+ /);
  expect(lines[1]).toMatch(
    new RegExp(
      `^\\[apt-install\\] gave up after 2 s waiting for the package lock, still held by pid ${holder.pid} \\(flock ${lock} sleep 6\\) on ${lock}.*: wait for it to finish \\(or stop it\\) and run again$`,
    ),
  );
  holder.kill();
  await holder.exited;
}, 30_000);
