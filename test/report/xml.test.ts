import { describe, expect, test } from "bun:test";
import { attrs, cdata, escapeAttr, escapeText, stripAnsi, xmlSafe } from "../../lib/core/xml.ts";
import { assertJunitTextValid } from "./junit-check.ts";

describe("characters XML 1.0 forbids are removed, not encoded", () => {
  test("ANSI colour and cursor sequences go whole, not just their ESC", () => {
    expect(stripAnsi("\x1b[1;31mred\x1b[0m \x1b[2K\x1b[1Gline \x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\ \x1b]0;title\x07end")).toBe("red line link end");
  });

  test("NUL, other C0 controls, lone surrogates and U+FFFE/U+FFFF", () => {
    expect(xmlSafe("a\x00b\x01c\x08d\x0be\x0cf\x1fg\ud800h\udfffi\ufffej\uffffk")).toBe("abcdefghijk");
  });

  test("tab, newline, carriage return and every printable plane stay", () => {
    const keep = "tab\there\nnl\r\ncr é € 日本 😀 \u{10FFFD} \uE000";
    expect(xmlSafe(keep)).toBe(keep);
  });

  test("a stray ESC without a sequence is dropped too", () => {
    expect(xmlSafe("a\x1bb")).toBe("ab");
  });
});

describe("escaping", () => {
  test("text", () => {
    expect(escapeText(`<a href="x">&amp;</a>`)).toBe(`&lt;a href="x"&gt;&amp;amp;&lt;/a&gt;`);
  });

  test("attributes keep newlines and tabs as character references", () => {
    expect(escapeAttr(`say "hi"\n\tand <go> & \x1b[31mred`)).toBe("say &quot;hi&quot;&#10;&#9;and &lt;go&gt; &amp; red");
  });

  test("undefined attributes are left out, order kept", () => {
    expect(attrs({ name: "a", message: undefined, time: 1.5 })).toBe(' name="a" time="1.5"');
  });

  test("]]> inside CDATA is split across two sections", () => {
    expect(cdata("a]]>b]]>")).toBe("<![CDATA[a]]]]><![CDATA[>b]]]]><![CDATA[>]]>");
  });

  test("what these functions produce parses, and keeps its text", () => {
    const hostile = "\x1b[31m]]>\x00<&>\"'\ud800 end";
    const xml = `<?xml version="1.0" encoding="UTF-8"?>\n<testsuite${attrs({ name: hostile, tests: 1, failures: 0, errors: 0 })}><testcase${attrs({ name: hostile })}><system-out>${cdata(hostile)}</system-out><system-err>${escapeText(hostile)}</system-err></testcase></testsuite>\n`;
    assertJunitTextValid(xml);
  });
});
