// The Markdown reading the docs tests rely on: a broken link or a missing anchor must be seen.
import { expect, test } from "bun:test";
import { headingSlugs, markdownLinks, runnableBlocks, slug } from "./markdown.ts";

test("headings are anchored as GitHub anchors them", () => {
  expect(slug("Flags of `gpucheck suite`")).toBe("flags-of-gpucheck-suite");
  expect(slug("Five minutes: from a key to a verified certificate")).toBe("five-minutes-from-a-key-to-a-verified-certificate");
  expect([...headingSlugs("# A\n## Install\n```\n# not a heading\n```\n## Install\n")]).toEqual(["a", "install", "install-1"]);
});

test("links are read outside code, with their line", () => {
  const text = "see [a](a.md#x) and `[b](b.md)`\n```\n[c](c.md)\n```\n[d](https://e.org)";
  expect(markdownLinks(text)).toEqual([
    { target: "a.md#x", line: 1 },
    { target: "https://e.org", line: 5 },
  ]);
});

test("only blocks marked sh runnable are run", () => {
  const text = "```sh\nnot me\n```\n\n```sh runnable\ngpucheck list\ngpucheck show cpu-smoke\n```\n";
  expect(runnableBlocks(text)).toEqual([{ code: "gpucheck list\ngpucheck show cpu-smoke", line: 6 }]);
});
