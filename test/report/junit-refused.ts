// Documents that junit-10.xsd or XML 1.0 refuses, each with what test/report/junit-check.ts says
// about it. The unit tier checks those messages; test/integration/report/validators.test.ts checks
// that xmllint refuses every one too, so the in-process check is never laxer than xmllint here.
const ok = (inner: string) => `<testsuite name="x" tests="1" failures="0" errors="0">${inner}</testsuite>`;

export const JUNIT_REFUSED: Array<[what: string, xml: string, message: string]> = [
  ["a testcase without a name", ok("<testcase/>"), "t.xml: /testsuite/testcase[1]: testcase lacks its required attribute name"],
  ["a testsuite without its errors count", `<testsuite name="x" tests="0" failures="0"/>`, "t.xml: /testsuite: testsuite lacks its required attribute errors"],
  ["an attribute the schema does not know", ok(`<testcase name="a" duration="1"/>`), "t.xml: /testsuite/testcase[1]: attribute duration is not allowed on testcase"],
  ["an element the schema does not know", ok(`<testcase name="a"><warning/></testcase>`), "t.xml: /testsuite/testcase[1]/warning[1]: warning is not allowed in testcase"],
  ["a testcase directly in testsuites", `<testsuites><testcase name="a"/></testsuites>`, "t.xml: /testsuites/testcase[1]: testcase is not allowed in testsuites"],
  ["text straight inside a testcase", ok(`<testcase name="a">loose words</testcase>`), "t.xml: /testsuite/testcase[1]: testcase may not hold text"],
  ["a property without its value", ok(`<properties><property name="p"/></properties><testcase name="a"/>`), "property lacks its required attribute value"],
  ["a rerunFailure without its type", ok(`<testcase name="a"><rerunFailure/></testcase>`), "rerunFailure lacks its required attribute type"],
  ["another root element", `<results/>`, "t.xml: the root element is results, not testsuites or testsuite"],
  ["an unescaped < in text", ok(`<testcase name="a"><system-out>a < b</system-out></testcase>`), "t.xml: line 1: < not followed by a name (write &lt;)"],
  ["a bare & in an attribute", ok(`<testcase name="a & b"/>`), "t.xml: line 1: a bare & (not an entity reference)"],
  ["an entity XML does not define", ok(`<testcase name="&nbsp;"/>`), "t.xml: line 1: unknown entity &nbsp;"],
  ["an escape character (U+001B) in text", ok(`<testcase name="a"><system-out>\x1b[31m</system-out></testcase>`), "t.xml: line 1: character U+001B is not allowed in XML 1.0"],
  ["a NUL as a character reference", ok(`<testcase name="&#0;"/>`), "t.xml: line 1: character reference &#0; is not a legal XML 1.0 character"],
  ["a mismatched closing tag", `<testsuite name="x" tests="0" failures="0" errors="0"></testsuites>`, "t.xml: line 1: </testsuites> closes <testsuite>"],
  ["an element never closed", `<testsuite name="x" tests="0" failures="0" errors="0">\n`, "t.xml: line 2: <testsuite> is never closed"],
  ["an attribute given twice", ok(`<testcase name="a" name="b"/>`), "t.xml: line 1: <testcase>: attribute name given twice"],
  ["an unquoted attribute", ok(`<testcase name=a/>`), "t.xml: line 1: <testcase>: attribute name has no quoted value"],
  ["two root elements", `${ok(`<testcase name="a"/>`)}<testsuite/>`, "t.xml: line 1: a second root element <testsuite>"],
  ["]]> in text", ok(`<testcase name="a"><system-out>a ]]> b</system-out></testcase>`), "t.xml: line 1: ]]> in text"],
  ["-- inside a comment", `<!-- a -- b -->${ok(`<testcase name="a"/>`)}`, "t.xml: line 1: -- inside a comment"],
];
