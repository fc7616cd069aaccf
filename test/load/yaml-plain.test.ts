// The fast path: when isPlainYaml says yes, Bun's native parser and the `yaml` package must read
// the text identically (and `yaml` must find nothing wrong); whatever could differ must say no.
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parseDocument } from "yaml";
import { generateSuite } from "../../bench/validate.ts";
import { builtinSuites } from "../../lib/core/assets.ts";
import { isPlainYaml } from "../../lib/load/yaml-plain.ts";

function bothRead(text: string) {
  const doc = parseDocument(text, { merge: true, uniqueKeys: true });
  expect([...doc.errors, ...doc.warnings].map((e) => e.message)).toEqual([]);
  expect(Bun.YAML.parse(text)).toEqual(doc.toJS());
}

const fixtures = join(import.meta.dir, "../fixtures/suites");
const corpus: Array<[string, string]> = [
  ...[...builtinSuites()].map(([name, b]): [string, string] => [`builtin ${name}`, b.text]),
  ...readdirSync(fixtures)
    .filter((f) => f.endsWith(".yaml"))
    .map((f): [string, string] => [f, readFileSync(join(fixtures, f), "utf8")]),
  ["generated 500-test suite", generateSuite(500)],
];

describe("plain suites take the fast path and read the same", () => {
  test.each(corpus)(
    "%s",
    (_name, text) => {
      expect(isPlainYaml(text)).toBe(true);
      bothRead(text);
    },
    30_000,
  );
});

const PLAIN = [
  "a: 1\nb: [1, 2, {c: d, e: 'f'}]\n",
  "tests:\n- {name: a, kind: b}\n- {name: a}\n",
  "a:\n  b: 1\nb: 2\n",
  "- a: 1\n- a: 2\n",
  "k: >\n  text: x & y\n  more\nj: 1\n",
  "k: |-\n  line: 1\n  line: 1\nj: 2\n",
  "u: http://x:80/y # comment\n",
  "name: it's fine\n",
  'env: { A: 1, B: true, C: text, D: "1.10" }\n',
  "q: 'it''s' # and a comment with a 'quote\n",
  "a: 95%\nb: busbw@1GiB\n",
  "nodes: 1.0\n",
  "list:\n  - - a\n    - b\n  - c\n",
];

test.each(PLAIN)("plain: %p", (text) => {
  expect(isPlainYaml(text)).toBe(true);
  bothRead(text);
});

test.each([
  ["a duplicate key", "a: 1\na: 2\n"],
  ["a duplicate key in a list item", "- a: 1\n  a: 2\n"],
  ["a duplicate key in a flow map", "a: { x: 1, x: 2 }\n"],
  ["a duplicate key in a nested flow map", "a: [1, {b: 2, b: 3}]\n"],
  ["an anchor", "a: &x 1\nb: *x\n"],
  ["a merge key", "a: {x: 1}\nb:\n  <<: {y: 2}\n"],
  ["a tag", "a: !secret x\n"],
  ["two documents", "a: 1\n---\nb: 2\n"],
  ["a complex key", "? [a]\n: 1\n"],
  ["a multi-line quoted string", 'a: "x\n  y"\n'],
  ["a multi-line plain string", "a: b\n  c\n"],
  ["a multi-line flow map", "a: { x: 1,\n  y: 2 }\n"],
  ["an env number whose text would change", "env: { A: 1.10 }\n"],
  ["an env hex number", "env:\n  A: 0x1F\n"],
  ["an env boolean written True", "defaults:\n  env:\n    A: True\n"],
  ["a tab in the indentation", "a:\n\tb: 1\n"],
  ["a block scalar as a list item", "- |\n  x\n"],
])("not plain: %s", (_what, text) => {
  expect(isPlainYaml(text)).toBe(false);
});

// Random edits of the built-in suites (seeded): every text judged plain that Bun parses must read
// the same in `yaml`, without errors. 15,000 such inputs passed while this was written.
test("mutated suites judged plain read the same in both parsers", () => {
  let seed = 7;
  const rnd = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rnd() * xs.length)];
  const texts = [...builtinSuites().values()].map((b) => b.text);
  const bits = [
    " ",
    "  ",
    "- ",
    ": ",
    "#",
    "'",
    '"',
    "{",
    "}",
    "[",
    "]",
    ",",
    "&a ",
    "*a",
    "!t ",
    "|",
    ">",
    "\n",
    "\t",
    "x",
    "1.10",
    "0x1F",
    "True",
    "env: ",
    "? ",
    "---\n",
    "@",
    "%",
    "a: 1",
    "\\",
  ];
  let plain = 0;
  for (let n = 0; n < 300; n++) {
    const lines = pick(texts).split("\n");
    for (let j = 0; j < 3; j++) {
      const i = Math.floor(rnd() * lines.length);
      const op = rnd();
      if (op < 0.3) lines.splice(i, 0, pick(lines));
      else if (op < 0.5) lines.splice(i, 1);
      else {
        const at = Math.floor(rnd() * (lines[i].length + 1));
        lines[i] = lines[i].slice(0, at) + pick(bits) + lines[i].slice(at);
      }
    }
    const text = lines.join("\n");
    if (!isPlainYaml(text)) continue;
    let fast: unknown;
    try {
      fast = Bun.YAML.parse(text);
    } catch {
      continue; // the loader falls back to `yaml`
    }
    plain++;
    const doc = parseDocument(text, { merge: true, uniqueKeys: true });
    expect({ text, errors: [...doc.errors, ...doc.warnings].map((e) => e.message), data: doc.toJS() }).toEqual({ text, errors: [], data: fast });
  }
  expect(plain).toBeGreaterThan(50);
}, 60_000);
