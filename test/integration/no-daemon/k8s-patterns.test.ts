// The isolating patterns' conformance table (pattern-conformance.ts) on the k8s platform against the
// in-process fake API server: each round an Indexed Job per group, pinned to its nodes, the nodes'
// faults in their software (test/fakes/fake-workload.ts).
// Here the scenarios with no fault and a failing node; the hanging node's, which mostly wait out
// timeouts, are in test/integration/isolate/k8s-patterns-hang.test.ts.
import { k8sPatterns } from "../../platforms/k8s-patterns.ts";

k8sPatterns({ faults: ["none", "fail"] });
