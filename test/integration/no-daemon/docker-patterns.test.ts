// The isolating patterns' conformance table (pattern-conformance.ts) on the docker platform: one
// fake engine per node (test/fakes/fake-docker.ts), each on a loopback address of its own so the
// platform takes them for four hosts, the nodes' faults in their software (test/fakes/fake-workload.ts).
// Plain HTTP to them, said by name (insecureTcp): fakes on loopback, no TLS to test here (docker-tls.test.ts).
// Here the scenarios with no fault and a failing node; the hanging node's, which mostly wait out
// timeouts, are in docker-patterns-hang.test.ts beside this file.
import { dockerPatterns } from "../../platforms/docker-patterns.ts";

dockerPatterns({ faults: ["none", "fail"] });
