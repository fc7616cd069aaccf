// suite.resolved.yaml: the merged suite written out with where each value came from, so a results
// directory copied anywhere can be validated and judged again without the files it extended.
// `gpucheck show` prints the same, plus each threshold's source: the comment written above it (or
// beside it) in the file that set it.
import { Document, isMap, isScalar, isSeq, type Node } from "../core/yaml.ts";
import { position, locate, nodeAt } from "./yaml-positions.ts";
import type { PathKey } from "../core/issues.ts";
import { originOf, type Tracked } from "./merge.ts";
import type { SourceFile } from "./read.ts";
import { builtinSuiteOf, floorAnchor, THRESHOLDS_DOC } from "./floor-anchor.ts";

const NOT_WRITTEN = new Set(["extends", "remove"]);

export function renderResolved(merged: Tracked, files: SourceFile[], opts: { sources?: boolean } = {}): string {
  const data = { ...(merged.value as Record<string, unknown>) };
  for (const k of NOT_WRITTEN) delete data[k];
  const doc = new Document(data);
  const origin = (path: PathKey[]) => {
    const { origin, rest } = originOf(merged.prov, path);
    return { file: files[origin.file]!, path: [...origin.path, ...rest] };
  };
  const where = (path: PathKey[]): string => {
    const { file, path: at } = origin(path);
    const line = position(file.text, file.lines, locate(file.doc, at, "value").offset).line;
    return `${file.display}:${line}`;
  };
  const source = opts.sources ? (path: PathKey[]) => withFloorRow(sourceComment(origin(path).file, origin(path).path), path, data, origin) : undefined;
  annotate(doc.contents as Node, [], where, source);
  const chain = files.map((f) => `${f.display} (sha256 ${f.sha256})`).join("\n#   extends ");
  const head = opts.sources
    ? `# gpucheck show: the suite as it runs, every extends merged in; after each value, the file:line that set it;\n# above each threshold, the comment its file wrote for it (its source).\n# ${chain}\n`
    : `# The suite as gpucheck ran it: every extends merged in; after each value, the file:line that set it.\n# ${chain}\n`;
  return head + doc.toString({ lineWidth: 0 });
}

const isThresholds = (path: PathKey[]) => path.length === 3 && path[0] === "tests" && path[2] === "expect";

function annotate(node: Node | null, path: PathKey[], where: (p: PathKey[]) => string, source?: (p: PathKey[]) => string | undefined): void {
  if (isMap(node)) {
    for (const pair of node.items) {
      const key = isScalar(pair.key) ? String(pair.key.value) : String(pair.key);
      const value = pair.value as Node | null;
      if (source && isThresholds(path) && isScalar(pair.key)) {
        const text = source([...path, key]);
        pair.key.commentBefore = text ?? " (no source comment in the file that set it)";
      }
      if (isScalar(value)) value.comment = ` ${where([...path, key])}`;
      else annotate(value, [...path, key], where, source);
    }
  } else if (isSeq(node)) {
    node.items.forEach((item, i) => {
      if (isScalar(item)) item.comment = ` ${where([...path, i])}`;
      else annotate(item as Node, [...path, i], where, source);
    });
  }
}

/**
 * A built-in floor (a `min:` a built-in suite file wrote) points to its row in docs/thresholds.md:
 * the method, healthy figure, margin and the single-part faults it catches.
 */
function withFloorRow(
  text: string | undefined,
  path: PathKey[],
  data: Record<string, unknown>,
  origin: (p: PathKey[]) => { file: SourceFile; path: PathKey[] },
): string | undefined {
  const [, i, , metric] = path;
  const test = Array.isArray(data.tests) ? (data.tests[i as number] as Record<string, unknown> | undefined) : undefined;
  const expect = test?.expect as Record<string, unknown> | undefined;
  const threshold = expect?.[metric as string];
  if (!threshold || typeof threshold !== "object" || !("min" in threshold) || typeof test?.name !== "string") return text;
  const suite = builtinSuiteOf(origin([...path, "min"]).file.display);
  if (!suite) return text;
  const row = ` floor explained (method, margin, faults it catches): ${THRESHOLDS_DOC}#${floorAnchor(suite, test.name, String(metric))}`;
  return text ? `${text}\n${row}` : row;
}

/** The comment lines directly above `path`'s key in its file, and a comment after its value on the same line. */
function sourceComment(file: SourceFile, path: PathKey[]): string | undefined {
  const at = position(file.text, file.lines, locate(file.doc, path, "key").offset);
  const lines = file.text.split("\n");
  const above: string[] = [];
  for (let i = at.line - 2; i >= 0 && /^\s*#/.test(lines[i]!); i--) above.unshift(lines[i]!.replace(/^\s*#/, ""));
  const beside = nodeAt(file.doc, path)?.comment;
  const all = [...above, ...(beside ? [beside] : [])];
  return all.length ? all.join("\n") : undefined;
}
