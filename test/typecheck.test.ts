import { expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { join } from "node:path";

const root = join(import.meta.dir, "..");

test("the whole project type-checks (tsc --noEmit)", () => {
  const r = spawnSync(join(root, "node_modules", ".bin", "tsc"), ["--noEmit", "-p", "."], { cwd: root, encoding: "utf8" });
  expect(r.stdout + r.stderr).toBe("");
  expect(r.status).toBe(0);
}, 300_000);
