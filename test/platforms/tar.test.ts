import { expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tarFiles } from "../../plugins/_shared/tar.ts";
import { tempDir } from "../tmp.ts";

test("GNU tar extracts what tarFiles writes, byte for byte, including nested and long paths", () => {
  const long = `${"d".repeat(60)}/${"e".repeat(60)}/file-with-a-long-name.py`;
  const files = new Map([
    ["pkg/__init__.py", "x = 'é'\n"],
    ["pkg/sub/mod.py", "print(1)\n".repeat(100)],
    [long, "long\n"],
    ["empty.txt", ""],
  ]);
  const dir = tempDir("gpucheck-tar-");
  writeFileSync(join(dir, "a.tar"), tarFiles(files, "stage"));
  const r = spawnSync("tar", ["-xf", "a.tar"], { cwd: dir, encoding: "utf8" });
  expect(r.stderr).toBe("");
  expect(r.status).toBe(0);
  for (const [p, text] of files) expect(readFileSync(join(dir, "stage", p), "utf8")).toBe(text);
});
