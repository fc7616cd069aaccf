// The isolating patterns' conformance table (test/platforms/pattern-conformance.ts), its hanging-node
// scenarios on every platform the unit tier runs the others on (k8s against the fake API server,
// docker against fake engines, ssh with the fake client, fake hosts). Here rather than in the unit
// tier because each mostly waits out a hung unit's timeout (up to 20 s a round); no daemon. One table
// at a time (three scenarios at once within it): all twelve at once on 2 cores timed out healthy units.
import { dockerPatterns } from "../../platforms/docker-patterns.ts";
import { fakeHostsPatterns } from "../../platforms/fake-hosts-patterns.ts";
import { k8sPatterns } from "../../platforms/k8s-patterns.ts";
import { sshPatterns } from "../../platforms/ssh-patterns.ts";

k8sPatterns({ faults: ["hang"] });
dockerPatterns({ faults: ["hang"] });
sshPatterns({ faults: ["hang"] });
fakeHostsPatterns({ faults: ["hang"] });
