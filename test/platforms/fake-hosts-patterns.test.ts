// The isolating patterns' conformance table (pattern-conformance.ts) on named hosts that run
// nothing (test/pipeline/fake-hosts.ts): the pipeline alone, its faults scripted by the hosts a unit has.
// Here the scenarios with no fault and a failing node; the hanging node's, which mostly wait out
// timeouts, are in test/integration/no-daemon/fake-hosts-patterns-hang.test.ts.
import { fakeHostsPatterns } from "./fake-hosts-patterns.ts";

fakeHostsPatterns({ faults: ["none", "fail"] });
