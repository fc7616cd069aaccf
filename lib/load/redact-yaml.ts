// A suite's text with its secret env values replaced by "***", everything else byte for byte: the
// copies a run directory keeps (suite.yaml, suite.resolved.yaml) are read by people and signed.
import { isPair, isScalar, parseDocument, visit } from "../core/yaml.ts";
import { REDACTED, type Redaction, scrubText } from "../core/redact.ts";

/**
 * Every `NAME: value` whose NAME is a secret variable (in an env map, or under an `x-` anchor that an
 * env map aliases) gets `"***"` in place of its value; then any secret value still in the text (an
 * anchor under another name, a comment) is scrubbed.
 */
export function redactSuiteText(text: string, r: Redaction): string {
  if (!r.names.size) return text;
  const doc = parseDocument(text, { keepSourceTokens: false, logLevel: "silent", uniqueKeys: false });
  const cuts: Array<[number, number]> = [];
  visit(doc, {
    Pair(_key, pair) {
      if (!isPair(pair) || !isScalar(pair.key) || !r.names.has(String(pair.key.value))) return;
      const v = pair.value;
      if (isScalar(v) && v.range && v.value !== REDACTED) cuts.push([v.range[0], v.range[1]]);
    },
  });
  let out = text;
  for (const [from, to] of cuts.sort((a, b) => b[0] - a[0])) out = `${out.slice(0, from)}"${REDACTED}"${out.slice(to)}`;
  return scrubText(out, r);
}
