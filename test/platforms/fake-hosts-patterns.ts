// The isolating patterns' conformance table (pattern-conformance.ts) on named hosts that run
// nothing (test/pipeline/fake-hosts.ts): the pipeline alone, its faults scripted by the hosts a unit has.
import { afterAll, beforeAll } from "bun:test";
import { PLATFORMS } from "../../cli/platforms.ts";
import { registerPlatforms } from "../../lib/core/platform.ts";
import { fakeHostsPlatform } from "../pipeline/fake-hosts.ts";
import { PYTHON } from "../pipeline/fake-platform.ts";
import { type PatternFault, patternConformance } from "./pattern-conformance.ts";

const HOSTS = ["h1", "h2", "h3", "h4"];
/** The table on fake-hosts, for the scenarios given (see PatternFault). */
export function fakeHostsPatterns(opts: { faults: readonly PatternFault[] }): void {
  beforeAll(() => {
    // planning finds the platform by name; each scenario runs through its own, with its fault
    registerPlatforms({ ...PLATFORMS, "fake-hosts": fakeHostsPlatform({ hosts: HOSTS, end: () => "ok" }) });
  });
  afterAll(() => registerPlatforms(PLATFORMS));

  patternConformance(
    "fake-hosts",
    () => ({
      nodes: HOSTS,
      hangTimeout: "1s",
      setup: (_python, fault) => ({
        platformYaml: "{ type: fake-hosts }",
        // the platform answers the preflight itself, for this Python
        python: PYTHON,
        platform: fakeHostsPlatform({ hosts: HOSTS, end: (h) => (fault && h.includes(fault.node) ? fault.end : "ok") }),
      }),
    }),
    opts,
  );
}
