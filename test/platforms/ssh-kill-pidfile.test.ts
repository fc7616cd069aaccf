// The kill script reads pid files another user or a stale run may have left: it must kill only a live
// process group of this user's that the file's number leads, never "kill -KILL -1", never a stranger.
import { expect, test } from "bun:test";
import { spawn, spawnSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { killScript } from "../../plugins/_shared/ssh/scripts.ts";
import { tempDir } from "../tmp.ts";

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return spawnSync("ps", ["-o", "stat=", "-p", String(pid)], { encoding: "utf8" }).stdout.trim()[0] !== "Z";
  } catch {
    return false;
  }
};

test("pid files holding 1, garbage, or a live process that leads no group of its own are skipped; a rank's session is killed", async () => {
  const base = tempDir("gpucheck-killpid-");
  const runs = join(base, "runs");
  mkdirSync(runs);
  // a rank as the rank script starts it: its own session (setsid), so its pid is its group's id
  const rank = spawn("setsid", ["sleep", "60"], { stdio: "ignore" });
  // a process that is not a group leader: this test's own child, in this test's group
  const stranger = spawn("sleep", ["60"], { stdio: "ignore" });
  await Bun.sleep(200);
  writeFileSync(join(runs, "r1.0.pid"), "1\n");
  writeFileSync(join(runs, "r1.1.pid"), "$(touch /tmp/x)\n");
  writeFileSync(join(runs, "r1.2.pid"), `${stranger.pid}\n`);
  writeFileSync(join(runs, "r1.3.pid"), `${rank.pid}\n`);
  const script = killScript({ base, hash: "h" }, "r1", [0, 1, 2, 3], 500);
  const r = spawnSync("sh", ["-c", script], { encoding: "utf8", timeout: 20_000 });
  expect(r.status).toBe(0);
  // only the rank is reported as running, and only it is gone
  expect(r.stdout).toBe("gpucheck-running 3\n");
  await Bun.sleep(200);
  expect(alive(rank.pid!)).toBe(false);
  expect(alive(stranger.pid!)).toBe(true);
  expect(alive(process.pid)).toBe(true);
  stranger.kill("SIGKILL");
});
