// What the build embeds and what npm ci installs (the built binary itself: test/integration/binary.test.ts).
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { renderAssets } from "../scripts/gen-assets.ts";

const root = join(import.meta.dir, "..");

test("lib/core/assets.gen.ts embeds every current suite and workload file", () => {
  expect(readFileSync(join(root, "lib", "core", "assets.gen.ts"), "utf8")).toBe(renderAssets());
});

test("package-lock.json lets npm ci install the arm64 Bun runtime on any CPU", () => {
  const lock = JSON.parse(readFileSync(join(root, "package-lock.json"), "utf8"));
  const entry = lock.packages["node_modules/@oven/bun-linux-aarch64"];
  expect(entry).toBeDefined();
  expect(entry.cpu).toBeUndefined();
  expect(entry.os).toBeUndefined();
  expect(entry.libc).toBeUndefined();
});
