// A suite's text with its secret env values replaced by "***", everything else byte for byte: the
// copies a run directory keeps (suite.yaml, suite.resolved.yaml) are read by people and signed.
import { isPair, isScalar, parseDocument, visit } from "../core/yaml.ts";
import { MIN_SCRUBBED, REDACTED, type Redaction, scrubText } from "../core/redact.ts";

/**
 * Each scalar that is the value of a secret name (`API_TOKEN: …`), or that is or holds a secret value
 * of MIN_SCRUBBED characters or more (an `x-` anchor an env map aliases, a URL with the token in it),
 * is rewritten as a double-quoted string with the values as ***; an alias to it stays an alias. Then
 * what is left outside scalars (a comment) is scrubbed too.
 */
export function redactSuiteText(text: string, r: Redaction): string {
  if (!r.names.size) return text;
  const doc = parseDocument(text, { logLevel: "silent", uniqueKeys: false });
  const cuts: Array<[number, number, string]> = [];
  const long = r.values.filter((v) => v.length >= MIN_SCRUBBED);
  visit(doc, {
    Pair(_key, pair) {
      if (!isPair(pair) || !isScalar(pair.key) || !r.names.has(String(pair.key.value))) return;
      const v = pair.value;
      if (isScalar(v) && v.range && v.value !== REDACTED) cuts.push([v.range[0], v.range[1], `"${REDACTED}"`]);
    },
    Scalar(_key, node) {
      if (typeof node.value !== "string" || !node.range || !long.some((v) => (node.value as string).includes(v))) return;
      if (cuts.some(([from]) => from === node.range![0])) return;
      cuts.push([node.range[0], node.range[1], JSON.stringify(scrubText(node.value, r, { assignments: false }))]);
    },
  });
  let out = text;
  // a block scalar's range takes in its last line break: it stays
  for (const [from, to, by] of cuts.sort((a, b) => b[0] - a[0])) out = `${out.slice(0, from)}${by}${/\s*$/.exec(out.slice(from, to))![0]}${out.slice(to)}`;
  return scrubText(out, r, { assignments: false });
}
