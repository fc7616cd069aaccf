// Is this YAML plain enough for Bun's native parser? `Bun.YAML.parse` reads a 500-test suite in
// a few milliseconds where the `yaml` package needs a few hundred (it keeps every node's position),
// but it silently keeps the last of two equal keys and reads tags and several documents its own
// way. This scan answers "yes" only for text that both parsers read the same: block maps and
// lists, one-line flow collections and quoted strings, comments, block scalars; no anchors,
// aliases, tags, directives, complex keys, duplicate keys, or env values that are numbers or
// booleans written in a form whose text would be lost (`1.10`, `0x1F`, `True`: env values keep
// their text). Anything else answers "no", and the loader takes the `yaml` package's exact path.

const KEY = /^(?:"([^"\\]*)"|'([^']*)'|([A-Za-z0-9_$][\w.@$/-]*(?: +[\w.@$/-]+)*))[ ]*:(?= |$)/;
const NUMBER = /^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?$|^0o[0-7]+$|^0x[0-9a-fA-F]+$|^[-+]?\.(?:inf|Inf|INF)$|^\.(?:nan|NaN|NAN)$/;
const OTHER_SCALAR = /^(?:true|false|True|False|TRUE|FALSE|null|Null|NULL|~)$/;

// outside quoted strings: anchors, aliases, tags, directives, complex keys, merge keys, a block
// scalar as a list item, document markers, tabs in the indentation
const EXOTIC = /(?:^|[\s,[{:])[&*!%?@`]|<<|^ *(?:- +)+[|>]|^(?:---|\.\.\.)|^ *\t/;
const QUOTED = /(^|[\s,[{:])("[^"]*"|'(?:[^']|'')*')/g;

export function isPlainYaml(text: string): boolean {
  // env: the map holds environment variables, whose values must keep their text
  const scopes: Array<{ indent: number; keys: Set<string>; last?: string; env: boolean }> = [];
  const open = (indent: number) => scopes.push({ indent, keys: new Set(), env: scopes.at(-1)?.last === "env" });
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = stripComment(lines[i].endsWith("\r") ? lines[i].slice(0, -1) : lines[i]);
    if (line === undefined) return false;
    if (/^\s*$/.test(line)) continue;
    if (EXOTIC.test(line.includes('"') || line.includes("'") ? line.replace(QUOTED, '$1""') : line)) return false;
    let col = line.length - line.trimStart().length;
    let rest = line.slice(col).trimEnd();
    let item = false;
    // "- " items: each starts a new map at the column after it
    while (rest.startsWith("- ") || rest === "-") {
      item = true;
      while (scopes.length && scopes.at(-1)!.indent > col) scopes.pop();
      const step = rest === "-" ? 1 : rest.length - rest.slice(1).trimStart().length;
      col += step;
      rest = rest.slice(step);
      open(col);
    }
    if (rest === "") continue;
    const key = KEY.exec(rest);
    // a line that is neither a key nor an item continues a multi-line scalar: leave it to `yaml`
    if (!key && !item) return false;
    let value = rest;
    if (key) {
      while (scopes.length && scopes.at(-1)!.indent > col) scopes.pop();
      if (!scopes.length || scopes.at(-1)!.indent < col) open(col);
      const name = key[1] ?? key[2] ?? key[3];
      const scope = scopes.at(-1)!;
      if (scope.keys.has(name)) return false;
      scope.keys.add(name);
      scope.last = name;
      value = rest.slice(key[0].length).trimStart();
    }
    const kind = plainValue(value, scopes.at(-1)?.env === true || key?.[3] === "env");
    if (kind === "block-scalar") {
      // its lines are text, whatever they look like
      while (i + 1 < lines.length && (/^\s*$/.test(lines[i + 1]) || lines[i + 1].length - lines[i + 1].trimStart().length > col)) i++;
    } else if (kind === "no") {
      return false;
    }
  }
  return true;
}

/** A line without its comment; undefined when a quote does not close on the line. */
function stripComment(line: string): string | undefined {
  if (!line.includes("#") && !line.includes('"') && !line.includes("'")) return line;
  let quote = "";
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (quote) {
      if (c === quote) quote = "";
    } else if ((c === '"' || c === "'") && (i === 0 || /[\s,[{:]/.test(line[i - 1]))) {
      quote = c;
    } else if (c === "#" && (i === 0 || line[i - 1] === " " || line[i - 1] === "\t")) {
      return line.slice(0, i);
    }
  }
  return quote ? undefined : line;
}

/** What follows `key:` or `- `: a value both parsers read alike, a block scalar, or "no". */
function plainValue(text: string, env: boolean): "yes" | "block-scalar" | "no" {
  const value = text.trim();
  if (value === "") return "yes";
  if (/^[|>][-+]?[0-9]?$/.test(value)) return "block-scalar";
  if (value[0] === "{" || value[0] === "[") return flow(value, env) ? "yes" : "no";
  if (value[0] === '"') return /^"[^"\\]*"$/.test(value) ? "yes" : "no";
  if (value[0] === "'") return /^'(?:[^']|'')*'$/.test(value) ? "yes" : "no";
  return scalar(value, env) ? "yes" : "no";
}

/** A plain scalar both parsers read alike; in env, one whose number or boolean keeps its text. */
function scalar(text: string, env: boolean): boolean {
  if (/^[-?:,[\]{}#&*!|>'"%@`]/.test(text) || /: |\s#/.test(text)) return false;
  if (!env) return true;
  if (NUMBER.test(text)) return String(Number(text)) === text;
  if (OTHER_SCALAR.test(text)) return text === "true" || text === "false" || text === "null";
  return true;
}

/** A complete one-line flow collection with unique keys in each of its maps. */
function flow(text: string, env: boolean): boolean {
  const stack: Array<{ map: boolean; keys: Set<string>; expectKey: boolean }> = [];
  let i = 0;
  const token = () => {
    const m = /^\s*(?:"([^"\\]*)"|'([^']*)'|([^,:[\]{}\s](?:[^,[\]{}:\s]|:(?![\s,[\]{}])| +(?=[^\s,[\]{}:]))*))\s*/.exec(text.slice(i));
    if (!m) return undefined;
    i += m[0].length;
    if (m[3] !== undefined && !scalar(m[3], env)) return null;
    return m[1] ?? m[2] ?? m[3];
  };
  while (i < text.length) {
    const c = text[i];
    const top = stack.at(-1);
    if (c === " ") i++;
    else if (c === "{" || c === "[") {
      stack.push({ map: c === "{", keys: new Set(), expectKey: true });
      i++;
    } else if (c === "}" || c === "]") {
      if (!top || top.map !== (c === "}")) return false;
      stack.pop();
      i++;
      if (!stack.length) return text.slice(i).trim() === "";
    } else if (c === ",") {
      if (!top) return false;
      top.expectKey = true;
      i++;
    } else if (c === ":") {
      if (!top?.map) return false;
      top.expectKey = false;
      i++;
    } else {
      const t = token();
      if (t === undefined || t === null || !top) return false;
      if (top.map && top.expectKey) {
        if (top.keys.has(t)) return false;
        top.keys.add(t);
      }
    }
  }
  return false;
}
