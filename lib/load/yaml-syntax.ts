// YAML's own complaints — syntax errors, unresolved tags, unknown aliases — as positioned
// diagnostics with messages in the house style, pointing where a person would look.
import { type Document, isAlias, isMap, isSeq, type LineCounter, type Node } from "../core/yaml.ts";
import type { Diagnostic } from "../core/errors.ts";
import { diagnosticAt, isNode, keyText, start } from "./yaml-positions.ts";

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
  const opener =
    code === "MISSING_CHAR" && /quote/.test(message)
      ? /(^|[\s:,[{])(["'])/g
      : code === "BAD_INDENT" && /end with a \]/.test(message)
        ? /(^|[\s:,[{])(\[)/g
        : code === "BAD_INDENT" && /end with a \}/.test(message)
          ? /(^|[\s:,[{])(\{)/g
          : undefined;
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
