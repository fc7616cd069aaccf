// From a path in a YAML document's data (["tests", 2, "nodes"]) back to where it is written, as
// an offset and then a line, a column and the line's text. ./yaml-syntax.ts reports YAML's own
// errors with the same helpers.
import { type Document, isAlias, isMap, isPair, isScalar, isSeq, type LineCounter, type Node, type Pair } from "../core/yaml.ts";
import type { Diagnostic } from "../core/errors.ts";

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

export function keyText(key: unknown): string | undefined {
  // a `<<` merge key's value is a symbol; its source is "<<"
  if (isScalar(key)) return typeof key.value === "symbol" ? key.source : String(key.value);
  return typeof key === "string" || typeof key === "number" ? String(key) : undefined;
}

function deref(doc: Document, node: Node | null | undefined): Node | null {
  if (isAlias(node)) return (node.resolve(doc) as Node | undefined) ?? node;
  return node ?? null;
}

export function isNode(n: unknown): n is Node {
  return typeof n === "object" && n !== null && "range" in n;
}

export function start(node: Node | null | undefined): number {
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

/** The text a scalar was written as (`1.10`, `on`), for values that must stay as written. */
export function sourceText(doc: Document, path: readonly PathKey[]): string | undefined {
  const node = nodeAt(doc, path);
  return isScalar(node) && typeof node.source === "string" ? node.source : undefined;
}
