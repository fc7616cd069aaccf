// From a path in a YAML document's data (["tests", 2, "nodes"]) back to where it is written, and
// YAML's own syntax errors in the same `path:line:col` form. Only this file and the loader know
// the `yaml` package's node types.
import { type Document, isAlias, isMap, isPair, isScalar, isSeq, type LineCounter, type Node, type Pair } from "yaml";
import type { Diagnostic } from "./errors.ts";

export type PathKey = string | number;

export interface Located {
  offset: number;
  /** the whole path was found (false: we stopped at the deepest ancestor that exists) */
  exact: boolean;
}

/** Where to point for `path`: at its value, at its key, or (for a missing key) at the map itself. */
export function locate(doc: Document, path: readonly PathKey[], at: "value" | "key" | "map"): Located {
  let node = deref(doc, doc.contents);
  let pair: Pair | undefined;
  for (let i = 0; i < path.length; i++) {
    const next = child(doc, node, path[i]);
    if (!next) return { offset: start(node), exact: false };
    ({ node, pair } = next);
  }
  if (at === "key" && pair && isNode(pair.key)) return { offset: start(pair.key), exact: true };
  // an empty value (`timeout:`) has no text of its own: point at its key
  if (at === "value" && pair && isNode(pair.key) && isScalar(node) && node.value === null && !node.source) return { offset: start(pair.key), exact: true };
  return { offset: start(node), exact: true };
}

/** The YAML node at `path`, following aliases; undefined when absent. */
export function nodeAt(doc: Document, path: readonly PathKey[]): Node | undefined {
  let node = deref(doc, doc.contents);
  for (const key of path) {
    const next = child(doc, node, key);
    if (!next) return undefined;
    node = next.node;
  }
  return node ?? undefined;
}

function child(doc: Document, node: Node | null | undefined, key: PathKey): { node: Node | null; pair?: Pair } | undefined {
  if (isSeq(node) && typeof key === "number") {
    const item = node.items[key];
    return item === undefined ? undefined : { node: deref(doc, item as Node) };
  }
  if (!isMap(node)) return undefined;
  for (const item of node.items) {
    if (isPair(item) && keyText(item.key) === String(key)) return { node: deref(doc, item.value as Node | null), pair: item };
  }
  // `<<: *anchor` merge keys: look in the merged maps
  for (const item of node.items) {
    if (!isPair(item) || keyText(item.key) !== "<<") continue;
    const sources = deref(doc, item.value as Node);
    for (const src of isSeq(sources) ? sources.items.map((s) => deref(doc, s as Node)) : [sources]) {
      const found = child(doc, src, key);
      if (found) return found;
    }
  }
  return undefined;
}

function keyText(key: unknown): string | undefined {
  // a `<<` merge key's value is a symbol; its source is "<<"
  if (isScalar(key)) return typeof key.value === "symbol" ? key.source : String(key.value);
  return typeof key === "string" || typeof key === "number" ? String(key) : undefined;
}

function deref(doc: Document, node: Node | null | undefined): Node | null {
  if (isAlias(node)) return (node.resolve(doc) as Node | undefined) ?? node;
  return node ?? null;
}

function isNode(n: unknown): n is Node {
  return typeof n === "object" && n !== null && "range" in n;
}

function start(node: Node | null | undefined): number {
  return node?.range?.[0] ?? 0;
}

/** 1-based line and column of an offset, plus that line's text for the caret display. */
export function position(text: string, lines: LineCounter, offset: number): { line: number; col: number; source: string } {
  const { line, col } = lines.linePos(Math.min(offset, text.length));
  const from = lines.lineStarts[line - 1] ?? 0;
  const end = text.indexOf("\n", from);
  const source = text.slice(from, end === -1 ? text.length : end).replace(/\r$/, "");
  return { line, col, source };
}

export function diagnosticAt(path: string, text: string, lines: LineCounter, offset: number, message: string): Diagnostic {
  return { path, message, ...position(text, lines, offset) };
}

/** YAML syntax errors, unresolved tags and unknown aliases, at most one per line. */
export function syntaxDiagnostics(doc: Document, text: string, lines: LineCounter, path: string): Diagnostic[] {
  const out: Diagnostic[] = [];
  const seen = new Set<number>();
  const add = (offset: number, message: string) => {
    const d = diagnosticAt(path, text, lines, offset, message);
    if (!seen.has(d.line)) out.push(d);
    seen.add(d.line);
  };
  for (const e of [...doc.errors, ...doc.warnings]) add(opening(text, e.code, e.message, e.pos[0]), syntaxMessage(doc, text, lines, e.code, e.message, e.pos[0]));
  visit(doc.contents, (node) => {
    if (isAlias(node) && node.resolve(doc) === undefined) add(start(node), `unknown alias "*${node.source}": define the anchor "&${node.source}" before using it`);
  });
  return out.sort((a, b) => a.line - b.line || a.col - b.col);
}

/**
 * An unclosed quote or bracket is reported where the file ends; point at where it was opened,
 * the last quote or bracket that starts a value before that point.
 */
function opening(text: string, code: string, message: string, offset: number): number {
  const opener = code === "MISSING_CHAR" && /quote/.test(message) ? /(^|[\s:,[{])(["'])/g : code === "BAD_INDENT" && /end with a \]/.test(message) ? /(^|[\s:,[{])(\[)/g : code === "BAD_INDENT" && /end with a \}/.test(message) ? /(^|[\s:,[{])(\{)/g : undefined;
  if (!opener) return offset;
  let found = offset;
  for (let m = opener.exec(text); m && m.index < offset; m = opener.exec(text)) found = m.index + m[1].length;
  return found;
}

function syntaxMessage(doc: Document, text: string, lines: LineCounter, code: string, message: string, offset: number): string {
  switch (code) {
    case "DUPLICATE_KEY": {
      const first = firstDuplicate(doc.contents, offset);
      const where = first === undefined ? "" : `: first defined at line ${lines.linePos(first.offset).line}`;
      return `duplicate key "${first?.key ?? text.slice(offset).split(/[:\s]/)[0]}"${where}`;
    }
    case "MULTIPLE_DOCS":
      return `a suite file holds one YAML document: remove the "---" that starts a second one`;
    case "TAB_AS_INDENT":
      return "tabs are not allowed as indentation: use spaces";
    case "TAG_RESOLVE_FAILED":
      return `unresolved tag ${JSON.stringify(message.replace(/^Unresolved tag:\s*/, ""))}: suites use plain YAML without tags`;
    default:
      return `invalid YAML: ${message.charAt(0).toLowerCase()}${message.slice(1).replace(/\.$/, "")}`;
  }
}

/** For a duplicate key at `offset`, the key's text and the offset of its first definition. */
function firstDuplicate(root: unknown, offset: number): { key: string; offset: number } | undefined {
  let found: { key: string; offset: number } | undefined;
  visit(root, (node) => {
    if (found || !isMap(node)) return;
    const dup = node.items.find((p) => isNode(p.key) && start(p.key) === offset);
    if (!dup) return;
    const key = keyText(dup.key);
    const first = node.items.find((p) => keyText(p.key) === key && p !== dup);
    if (key !== undefined && first && isNode(first.key)) found = { key, offset: start(first.key) };
  });
  return found;
}

function visit(node: unknown, fn: (node: Node) => void): void {
  if (!isNode(node)) return;
  fn(node);
  if (isMap(node)) {
    for (const p of node.items) {
      visit(p.key, fn);
      visit(p.value, fn);
    }
  } else if (isSeq(node)) {
    for (const item of node.items) visit(item, fn);
  }
}

/** The text a scalar was written as (`1.10`, `on`), for values that must stay as written. */
export function sourceText(doc: Document, path: readonly PathKey[]): string | undefined {
  const node = nodeAt(doc, path);
  return isScalar(node) && typeof node.source === "string" ? node.source : undefined;
}
