// The isolating patterns' hanging-node scenarios on this platform (test/platforms/pattern-conformance.ts):
// pure TypeScript against fakes, no daemon, but each mostly waits out a hung unit's timeout, so each
// platform has a file of its own and the no-daemon group's parallel runner spreads them over its workers.
import { sshPatterns } from "../../platforms/ssh-patterns.ts";

sshPatterns({ faults: ["hang"] });
