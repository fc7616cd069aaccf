// The isolating patterns' conformance table (test/platforms/pattern-conformance.ts), its hanging-node
// scenarios on every platform the unit tier runs the others on (k8s against the fake API server,
// docker against fake engines, ssh with the fake client, fake hosts). Here rather than in the unit
// tier because each mostly waits out a hung unit's timeout (up to 20 s a round); no daemon. The four
// tables start at once, so the file takes about as long as the slowest of them.
import { dockerPatterns } from "../../platforms/docker-patterns.ts";
import { fakeHostsPatterns } from "../../platforms/fake-hosts-patterns.ts";
import { k8sPatterns } from "../../platforms/k8s-patterns.ts";
import { sshPatterns } from "../../platforms/ssh-patterns.ts";

k8sPatterns({ faults: ["hang"], eager: true });
dockerPatterns({ faults: ["hang"], eager: true });
sshPatterns({ faults: ["hang"], eager: true });
fakeHostsPatterns({ faults: ["hang"], eager: true });
