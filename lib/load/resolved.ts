// suite.resolved.yaml: the merged suite written out with where each value came from, so a results
// directory copied anywhere can be validated and judged again without the files it extended.
import { Document, isMap, isScalar, isSeq, type Node } from "yaml";
import { position, locate } from "../yaml-positions.ts";
import type { PathKey } from "../schema/issues.ts";
import { originOf, type Tracked } from "./merge.ts";
import type { SourceFile } from "./read.ts";

const NOT_WRITTEN = new Set(["extends", "remove"]);

export function renderResolved(merged: Tracked, files: SourceFile[]): string {
  const data = { ...(merged.value as Record<string, unknown>) };
  for (const k of NOT_WRITTEN) delete data[k];
  const doc = new Document(data);
  const where = (path: PathKey[]): string => {
    const { origin, rest } = originOf(merged.prov, path);
    const file = files[origin.file]!;
    const line = position(file.text, file.lines, locate(file.doc, [...origin.path, ...rest], "value").offset).line;
    return `${file.display}:${line}`;
  };
  annotate(doc.contents as Node, [], where);
  const chain = files.map((f) => `${f.display} (sha256 ${f.sha256})`).join("\n#   extends ");
  const head = `# The suite as gpucheck ran it: every extends merged in; after each value, the file:line that set it.\n# ${chain}\n`;
  return head + doc.toString({ lineWidth: 0 });
}

function annotate(node: Node | null, path: PathKey[], where: (p: PathKey[]) => string): void {
  if (isMap(node)) {
    for (const pair of node.items) {
      const key = isScalar(pair.key) ? String(pair.key.value) : String(pair.key);
      const value = pair.value as Node | null;
      if (isScalar(value)) value.comment = ` ${where([...path, key])}`;
      else annotate(value, [...path, key], where);
    }
  } else if (isSeq(node)) {
    node.items.forEach((item, i) => {
      if (isScalar(item)) item.comment = ` ${where([...path, i])}`;
      else annotate(item as Node, [...path, i], where);
    });
  }
}
