// The little of Markdown the docs tests read: inline links outside code, headings as GitHub
// anchors them, and fenced blocks with their info string.

/** Lines of `text` with fenced code blocks blanked, so a link or heading inside code is not read. */
function outsideFences(text: string): string[] {
  let fence = false;
  return text.split("\n").map((l) => {
    if (/^\s*```/.test(l)) {
      fence = !fence;
      return "";
    }
    return fence ? "" : l;
  });
}

/** `[text](target)` links outside code blocks and code spans, with their 1-based line. */
export function markdownLinks(text: string): { target: string; line: number }[] {
  const out: { target: string; line: number }[] = [];
  outsideFences(text).forEach((l, i) => {
    const prose = l.replace(/`[^`]*`/g, "");
    for (const m of prose.matchAll(/\[[^\]]*\]\(([^)\s]+)\)/g)) out.push({ target: m[1]!, line: i + 1 });
  });
  return out;
}

/** GitHub's anchor of a heading: lower case, punctuation but - and _ dropped, spaces to -. */
export function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, "")
    .replace(/\s/g, "-");
}

/** The anchors of a page's headings (a repeated heading gets -1, -2 … as on GitHub). */
export function headingSlugs(text: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const l of outsideFences(text)) {
    const m = /^#{1,6}\s+(.*)$/.exec(l);
    if (!m) continue;
    const s = slug(m[1]!);
    const n = seen.get(s) ?? 0;
    seen.set(s, n + 1);
    out.add(n ? `${s}-${n}` : s);
  }
  return out;
}

/** Fenced blocks whose info string is `sh runnable`: their text and 1-based first line. */
export function runnableBlocks(text: string): { code: string; line: number }[] {
  const out: { code: string; line: number }[] = [];
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    if (!/^```sh runnable\s*$/.test(lines[i]!)) continue;
    const start = i + 1;
    let j = start;
    while (j < lines.length && !/^```\s*$/.test(lines[j]!)) j++;
    out.push({ code: lines.slice(start, j).join("\n"), line: start + 1 });
    i = j;
  }
  return out;
}
