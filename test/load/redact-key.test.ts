// `redact:` the suite's own list of env names whose values are written as ***: its messages, and how
// extends combines the lists (they add up: a child cannot un-redact its parent's names).
import { describe, expect, test } from "bun:test";
import { load, problems } from "./_load.ts";

const TEST = "tests:\n  - { name: inv, kind: inventory, env: { API_URL: https://x.example/?k=1 } }\n";

describe("redact:", () => {
  test("a list of env names is kept on the suite", async () => {
    const s = await load({ "suite.yaml": `name: s\nredact: [API_URL, HF_HUB]\n${TEST}` });
    expect(s.redact).toEqual(["API_URL", "HF_HUB"]);
  });

  test("absent or empty: no redact on the suite", async () => {
    expect((await load({ "suite.yaml": `name: s\n${TEST}` })).redact).toBeUndefined();
    expect((await load({ "suite.yaml": `name: s\nredact: []\n${TEST}` })).redact).toBeUndefined();
  });

  test("not a list: the message says what it is for and shows the form", async () => {
    expect(await problems(`name: s\nredact: API_URL\n${TEST}`)).toBe(
      `suite.yaml:2:9: "redact" must be a list of environment variable names whose values gpucheck writes as *** (for example [API_URL, HF_HUB]), got "API_URL"
  redact: API_URL
          ^`,
    );
  });

  test("a name that is not an environment variable name is pointed at", async () => {
    expect(await problems(`name: s\nredact: [API_URL, 9LIVES, my-var]\n${TEST}`)).toBe(
      `suite.yaml:2:19: invalid environment variable name "9LIVES" in "redact": expected letters, digits and _, not starting with a digit
  redact: [API_URL, 9LIVES, my-var]
                    ^
suite.yaml:2:27: invalid environment variable name "my-var" in "redact": expected letters, digits and _, not starting with a digit
  redact: [API_URL, 9LIVES, my-var]
                            ^`,
    );
  });

  test("extends: the lists add up, the parent's names first", async () => {
    const s = await load({
      "child.yaml": "name: child\nextends: base.yaml\nredact: [HF_HUB, API_URL]\n",
      "base.yaml": `name: base\nredact: [API_URL]\n${TEST}`,
    });
    expect(s.redact).toEqual(["API_URL", "HF_HUB"]);
  });
});
