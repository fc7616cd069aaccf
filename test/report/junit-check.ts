// junit.xml checked in-process, so that the unit tier needs no xmllint: a strict XML 1.0 reader
// (well-formedness: one root, matched tags, quoted and unique attributes, known entities, only the
// characters XML 1.0 allows) and the rules of test/fixtures/junit/junit-10.xsd (which element may
// hold which, required and known attributes, SUREFIRE_TIME), plus the counts Jenkins' schema cannot
// check. test/integration/report/validators.test.ts runs xmllint itself on the same inputs and fails
// when the two disagree; test/report/xsd.ts (xmllint) stays for the integration runs.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../tmp.ts";

export interface XmlElement {
  name: string;
  attrs: Record<string, string>;
  children: XmlElement[];
  text: string;
}

const NAME = /^[A-Za-z_:][-A-Za-z0-9_:.]*/;
// XML 1.0 Char: tab, LF, CR, U+0020–U+D7FF, U+E000–U+FFFD, U+10000–U+10FFFF (no lone surrogates)
const BAD_CHAR = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/u;
const ENTITIES: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'" };

function decode(raw: string, where: () => string): string {
  return raw.replace(/&([^;]*);|&/g, (all, ref: string | undefined) => {
    if (ref === undefined) throw new Error(`${where()}: a bare & (not an entity reference)`);
    if (ref in ENTITIES) return ENTITIES[ref] as string;
    const m = /^#(?:x([0-9A-Fa-f]+)|([0-9]+))$/.exec(ref);
    if (!m) throw new Error(`${where()}: unknown entity &${ref};`);
    const code = m[1] !== undefined ? Number.parseInt(m[1], 16) : Number(m[2]);
    const ch = code <= 0x10ffff ? String.fromCodePoint(code) : "\0";
    if (BAD_CHAR.test(ch)) throw new Error(`${where()}: character reference ${all} is not a legal XML 1.0 character`);
    return ch;
  });
}

/** The document's root element; throws "<name>: line N: <what is wrong>" on the first error. */
export function parseXml(xml: string, name = "junit.xml"): XmlElement {
  let i = 0;
  const line = () => xml.slice(0, i).split("\n").length;
  const where = () => `${name}: line ${line()}`;
  const fail = (what: string): never => {
    throw new Error(`${where()}: ${what}`);
  };
  const bad = BAD_CHAR.exec(xml);
  if (bad) {
    i = bad.index;
    fail(`character U+${(bad[0].codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, "0")} is not allowed in XML 1.0`);
  }
  if (xml.startsWith("\uFEFF")) i = 1;
  const stack: XmlElement[] = [];
  let root: XmlElement | undefined;
  while (i < xml.length) {
    const lt = xml.indexOf("<", i);
    const text = xml.slice(i, lt === -1 ? xml.length : lt);
    if (text.length > 0) {
      const top = stack.at(-1);
      if (!top) {
        if (text.trim() !== "") fail("text outside the root element");
      } else {
        if (text.includes("]]>")) fail("]]> in text");
        top.text += decode(text, where);
      }
    }
    if (lt === -1) {
      i = xml.length;
      break;
    }
    i = lt;
    if (xml.startsWith("<?", i)) {
      const end = xml.indexOf("?>", i);
      if (end === -1) fail("unterminated processing instruction");
      if (xml.startsWith("<?xml", i) && /^<\?xml\s/.test(xml.slice(i, i + 6)) && i !== (xml.startsWith("\uFEFF") ? 1 : 0)) fail("the XML declaration is not at the start");
      i = end + 2;
    } else if (xml.startsWith("<!--", i)) {
      const end = xml.indexOf("-->", i + 4);
      if (end === -1) fail("unterminated comment");
      if (xml.slice(i + 4, end).includes("--") || xml[end - 1] === "-") fail("-- inside a comment");
      i = end + 3;
    } else if (xml.startsWith("<![CDATA[", i)) {
      const top = stack.at(-1) ?? fail("CDATA outside the root element");
      const end = xml.indexOf("]]>", i + 9);
      if (end === -1) fail("unterminated CDATA section");
      top.text += xml.slice(i + 9, end);
      i = end + 3;
    } else if (xml.startsWith("<!", i)) {
      fail("a DOCTYPE or other declaration (junit.xml has none)");
    } else if (xml.startsWith("</", i)) {
      i += 2;
      const m = NAME.exec(xml.slice(i)) ?? fail("a closing tag without a name");
      const open = stack.pop();
      if (!open || open.name !== m[0]) fail(`</${m[0]}> closes ${open ? `<${open.name}>` : "nothing"}`);
      i += m[0].length;
      while (/\s/.test(xml[i] ?? "")) i++;
      if (xml[i] !== ">") fail(`</${m[0]} is not closed by >`);
      i++;
    } else {
      i++;
      const m = NAME.exec(xml.slice(i)) ?? fail("< not followed by a name (write &lt;)");
      i += m[0].length;
      const el: XmlElement = { name: m[0], attrs: {}, children: [], text: "" };
      for (;;) {
        const ws = /^\s*/.exec(xml.slice(i))?.[0].length ?? 0;
        i += ws;
        if (xml.startsWith("/>", i) || xml[i] === ">") break;
        if (ws === 0) fail(`<${el.name}>: attributes must be separated by white space`);
        const a = NAME.exec(xml.slice(i)) ?? fail(`<${el.name}>: an attribute without a name`);
        i += a[0].length;
        const eq = /^\s*=\s*(["'])/.exec(xml.slice(i)) ?? fail(`<${el.name}>: attribute ${a[0]} has no quoted value`);
        i += eq[0].length;
        const end = xml.indexOf(eq[1] as string, i);
        if (end === -1) fail(`<${el.name}>: attribute ${a[0]}'s value is not closed`);
        const raw = xml.slice(i, end);
        if (raw.includes("<")) fail(`<${el.name}>: < in attribute ${a[0]}'s value`);
        if (a[0] in el.attrs) fail(`<${el.name}>: attribute ${a[0]} given twice`);
        // attribute-value normalisation: literal white space becomes a space, as an XML reader gives it
        el.attrs[a[0]] = decode(raw.replace(/[\t\n\r]/g, " "), where);
        i = end + 1;
      }
      const parent = stack.at(-1);
      if (parent) parent.children.push(el);
      else if (root) fail(`a second root element <${el.name}>`);
      else root = el;
      if (xml.startsWith("/>", i)) i += 2;
      else {
        i++;
        stack.push(el);
      }
    }
  }
  const open = stack.pop();
  if (open) fail(`<${open.name}> is never closed`);
  return root ?? fail("no root element");
}

// junit-10.xsd, as data: each element's allowed children, attributes, and which attributes it requires
interface Rule {
  children: string[];
  attrs: string[];
  required: string[];
  text: boolean;
}
const OUTCOME: Rule = { children: [], attrs: ["type", "message"], required: [], text: true };
const RERUN: Rule = { children: ["stackTrace", "system-out", "system-err"], attrs: ["message", "type"], required: ["type"], text: true };
const STRING: Rule = { children: [], attrs: [], required: [], text: true };
const RULES: Record<string, Rule> = {
  testsuites: { children: ["testsuite"], attrs: ["name", "time", "tests", "failures", "errors"], required: [], text: false },
  testsuite: {
    children: ["testsuite", "properties", "testcase", "system-out", "system-err"],
    attrs: ["name", "tests", "failures", "errors", "group", "time", "skipped", "timestamp", "hostname", "id", "package", "file", "log", "url", "version"],
    required: ["name", "tests", "failures", "errors"],
    text: false,
  },
  testcase: {
    children: ["skipped", "error", "failure", "rerunFailure", "rerunError", "flakyFailure", "flakyError", "system-out", "system-err"],
    attrs: ["name", "time", "classname", "group"],
    required: ["name"],
    text: false,
  },
  properties: { children: ["property"], attrs: [], required: [], text: false },
  property: { children: [], attrs: ["name", "value"], required: ["name", "value"], text: false },
  failure: OUTCOME,
  error: OUTCOME,
  skipped: OUTCOME,
  rerunFailure: RERUN,
  rerunError: RERUN,
  flakyFailure: RERUN,
  flakyError: RERUN,
  stackTrace: STRING,
  "system-out": STRING,
  "system-err": STRING,
};
const SUREFIRE_TIME = /^(?:(?:(?:[0-9]{0,3},)*[0-9]{3}|[0-9]{0,3})*(?:\.[0-9]{0,3})?)$/;

function checkElement(el: XmlElement, path: string, errors: string[]): void {
  const rule = RULES[el.name];
  if (!rule) {
    errors.push(`${path}: element ${el.name} is not declared in junit-10.xsd`);
    return;
  }
  for (const a of Object.keys(el.attrs)) if (!rule.attrs.includes(a)) errors.push(`${path}: attribute ${a} is not allowed on ${el.name}`);
  for (const a of rule.required) if (!(a in el.attrs)) errors.push(`${path}: ${el.name} lacks its required attribute ${a}`);
  const time = el.attrs.time;
  if ((el.name === "testsuite" || el.name === "testsuites") && time !== undefined && !SUREFIRE_TIME.test(time)) errors.push(`${path}: time="${time}" is not a SUREFIRE_TIME`);
  if (!rule.text && el.text.trim() !== "") errors.push(`${path}: ${el.name} may not hold text`);
  if (el.name === "rerunFailure" || el.name === "rerunError" || el.name === "flakyFailure" || el.name === "flakyError") {
    // an xs:sequence of optional elements: each at most once, in order
    const order = el.children.map((c) => RERUN.children.indexOf(c.name));
    if (order.some((n, k) => k > 0 && n <= (order[k - 1] as number))) errors.push(`${path}: ${el.name}'s children are out of order or repeated`);
  }
  el.children.forEach((c, k) => {
    if (!rule.children.includes(c.name)) errors.push(`${path}/${c.name}[${k + 1}]: ${c.name} is not allowed in ${el.name}`);
    else checkElement(c, `${path}/${c.name}[${k + 1}]`, errors);
  });
}

/** Every problem against junit-10.xsd, one line each; empty when valid. Throws when not well-formed XML. */
export function junitSchemaErrors(xml: string, name = "junit.xml"): string[] {
  const root = parseXml(xml, name);
  const errors: string[] = [];
  if (root.name !== "testsuites" && root.name !== "testsuite") errors.push(`${name}: the root element is ${root.name}, not testsuites or testsuite`);
  else checkElement(root, `${name}: /${root.name}`, errors);
  return errors;
}

function suites(el: XmlElement): XmlElement[] {
  return [...(el.name === "testsuite" ? [el] : []), ...el.children.flatMap(suites)];
}

/** Throws naming the file and the problem when the text is not valid against junit-10.xsd or a testsuite's counts are wrong. */
export function assertJunitXmlValid(xml: string, name = "junit.xml"): XmlElement {
  const errors = junitSchemaErrors(xml, name);
  if (errors.length > 0) throw new Error(`${name} does not validate against junit-10.xsd:\n${errors.join("\n")}`);
  const root = parseXml(xml, name);
  suites(root).forEach((s, k) => {
    const cases = s.children.filter((c) => c.name === "testcase");
    const expect: Record<string, number> = {
      tests: cases.length,
      failures: cases.filter((c) => c.children.some((o) => o.name === "failure")).length,
      errors: cases.filter((c) => c.children.some((o) => o.name === "error")).length,
      skipped: cases.filter((c) => c.children.some((o) => o.name === "skipped")).length,
    };
    for (const [attr, n] of Object.entries(expect)) {
      const said = s.attrs[attr];
      // skipped is optional in the schema; the others are required, so the schema check caught their absence
      if (said === undefined && attr === "skipped") continue;
      if (said !== String(n)) throw new Error(`${name}: testsuite ${k + 1} says ${attr}="${said}" but has ${n}`);
    }
  });
  return root;
}

/** The same for a file on disk (the name in messages is its path). */
export function assertJunitValid(path: string): XmlElement {
  return assertJunitXmlValid(readFileSync(path, "utf8"), path);
}

/** Against junit-10.xsd only (test/integration/no-daemon/report-fleet.test.ts counts its big file itself). */
export function assertJunitSchemaValid(path: string): void {
  const errors = junitSchemaErrors(readFileSync(path, "utf8"), path);
  if (errors.length > 0) throw new Error(`${path} does not validate against junit-10.xsd:\n${errors.join("\n")}`);
}

/** For text not yet on disk; also writes it to a temporary file, as the xmllint version did, so a failure can be looked at. */
export function assertJunitTextValid(xml: string, name = "junit.xml"): XmlElement {
  const path = join(tempDir("gpucheck-junit-"), name);
  writeFileSync(path, xml);
  return assertJunitXmlValid(xml, path);
}
