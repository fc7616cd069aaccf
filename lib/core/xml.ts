// Text that ends up in junit.xml and report.html comes from workload logs: colour codes, NULs,
// progress-bar carriage returns, half-written UTF-8. One invalid character makes Jenkins reject the
// whole file ("[failed-to-read]"), and escaping does not help (`&#27;` is just as invalid in XML 1.0),
// so such characters are removed, never encoded.

/** ANSI/VT escape sequences: CSI (colours, cursor moves), OSC (titles, hyperlinks), two-byte escapes. */
const ANSI = /\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[@-Z\\-_]?/g;

/** Everything outside XML 1.0's Char production; with the u flag a lone surrogate is one code point. */
const NOT_XML_CHAR = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;

export function stripAnsi(s: string): string {
  return s.replace(ANSI, "");
}

/** Removes escape sequences whole (so no stray "[31m" remains), then any character XML 1.0 forbids. */
export function xmlSafe(s: string): string {
  return stripAnsi(s).replace(NOT_XML_CHAR, "");
}

export function escapeText(s: string): string {
  return xmlSafe(s).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

/** Attribute values: raw newlines and tabs would be normalised to spaces by the parser, so encode them. */
export function escapeAttr(s: string): string {
  return escapeText(s).replace(/"/g, "&quot;").replace(/\n/g, "&#10;").replace(/\r/g, "&#13;").replace(/\t/g, "&#9;");
}

/** A CDATA section; `]]>` in the text is split across two sections, the only way to carry it. */
export function cdata(s: string): string {
  return `<![CDATA[${xmlSafe(s).replace(/]]>/g, "]]]]><![CDATA[>")}]]>`;
}

/** ` name="value"` pairs in the given order; undefined values are left out rather than written empty. */
export function attrs(pairs: Record<string, string | number | undefined>): string {
  let out = "";
  for (const [k, v] of Object.entries(pairs)) if (v !== undefined) out += ` ${k}="${escapeAttr(String(v))}"`;
  return out;
}
