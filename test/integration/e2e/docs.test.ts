// The doc tests: every shell block marked `sh runnable` in README.md and docs/ runs as a reader would
// run it, against the compiled binary copied alone into an empty directory on PATH. A page's blocks
// run in order in one directory of their own (the README's walkthrough builds on its earlier steps),
// each under `bash -euo pipefail`, so a command that fails fails the block. Kept cheap: runnable
// blocks may validate, plan, list, show, keygen, certify, verify and judge, and run at most one suite
// (the README's cpu-smoke, two quick tests) across all pages.
import { describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { copyFileSync, mkdirSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { runnableBlocks } from "../../docs/markdown.ts";
import { tempDir } from "../../tmp.ts";

const root = join(import.meta.dir, "..", "..", "..");
const binary = process.env.GPUCHECK_TEST_BINARY ?? join(root, "compiled", "gpucheck");

function markdownFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? markdownFiles(p) : n.endsWith(".md") ? [p] : [];
  });
}

const pages = [join(root, "README.md"), ...markdownFiles(join(root, "docs"))]
  .map((p) => ({ page: relative(root, p), blocks: runnableBlocks(readFileSync(p, "utf8")) }))
  .filter((p) => p.blocks.length > 0);

test("the README's walkthrough and the docs have runnable blocks, and run one suite at most", () => {
  expect(pages.find((p) => p.page === "README.md")?.blocks.length).toBeGreaterThanOrEqual(4);
  const suiteRuns = pages.flatMap((p) =>
    p.blocks.flatMap((b) =>
      b.code
        .split("\n")
        .filter((l) => /^\s*gpucheck suite\b/.test(l))
        .map(() => p.page),
    ),
  );
  expect(suiteRuns).toEqual(["README.md"]);
});

describe("runnable shell blocks against the compiled binary", () => {
  for (const { page, blocks } of pages) {
    test(`${page}: its ${blocks.length} runnable block(s) succeed in order`, () => {
      const dir = tempDir("gpucheck-docs-");
      const bin = join(dir, ".bin");
      mkdirSync(bin);
      copyFileSync(binary, join(bin, "gpucheck"));
      spawnSync("chmod", ["+x", join(bin, "gpucheck")]);
      const work = join(dir, "work");
      mkdirSync(work);
      for (const b of blocks) {
        const r = spawnSync("bash", ["-euo", "pipefail", "-c", b.code], {
          cwd: work,
          encoding: "utf8",
          env: { PATH: `${bin}:/usr/bin:/bin`, HOME: dir, LANG: "C.UTF-8" },
          timeout: 240_000,
        });
        const tail = `${r.stdout}\n${r.stderr}`.trim().split("\n").slice(-15).join("\n");
        if (r.status !== 0) throw new Error(`${page}:${b.line}: the runnable block exited ${r.status ?? r.signal}:\n${b.code}\n--- output (end) ---\n${tail}`);
      }
    }, 300_000);
  }
});
