// Every relative link in README.md, docs/, BENCHMARKS.md and bench/HISTORY.md leads somewhere: the file exists, and an #anchor names a
// heading of the page it points at (GitHub's slug of the heading).
import { expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { headingSlugs, markdownLinks } from "./markdown.ts";

const root = join(import.meta.dir, "..", "..");

function markdownFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? markdownFiles(p) : n.endsWith(".md") ? [p] : [];
  });
}

const pages = [join(root, "README.md"), join(root, "BENCHMARKS.md"), join(root, "bench", "HISTORY.md"), ...markdownFiles(join(root, "docs"))];

test("the docs have pages to check, and links in them", () => {
  expect(pages.length).toBeGreaterThan(15);
  expect(markdownLinks(readFileSync(join(root, "README.md"), "utf8")).length).toBeGreaterThan(20);
});

for (const page of pages) {
  test(`${relative(root, page)}: every relative link resolves`, () => {
    const text = readFileSync(page, "utf8");
    const broken: string[] = [];
    for (const { target, line } of markdownLinks(text)) {
      if (/^[a-z]+:/i.test(target)) continue; // https:, mailto: … are not checked (no network in tests)
      const [path, anchor] = target.split("#") as [string, string | undefined];
      const file = path === "" ? page : join(dirname(page), decodeURIComponent(path));
      if (!existsSync(file)) {
        broken.push(`${relative(root, page)}:${line}: ${target}: no such file ${relative(root, file)}`);
        continue;
      }
      if (anchor !== undefined && file.endsWith(".md") && !headingSlugs(readFileSync(file, "utf8")).has(anchor)) {
        broken.push(`${relative(root, page)}:${line}: ${target}: ${relative(root, file)} has no heading #${anchor}`);
      }
    }
    expect(broken).toEqual([]);
  });
}
