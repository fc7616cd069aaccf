// The isolating patterns' conformance table (pattern-conformance.ts) on the ssh platform with the
// fake ssh client (test/fakes/ssh.sh), whose hosts are scratch directories on this machine, the
// nodes' faults in their software (test/fakes/fake-workload.ts).
// Here the scenarios with no fault and a failing node; the hanging node's, which mostly wait out
// timeouts, are in test/integration/isolate/ssh-patterns-hang.test.ts.
import { sshPatterns } from "../../platforms/ssh-patterns.ts";

sshPatterns({ faults: ["none", "fail"] });
