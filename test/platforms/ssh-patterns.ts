// The isolating patterns' conformance table (pattern-conformance.ts) on the ssh platform with the
// fake ssh client (test/fakes/ssh.sh), whose hosts are scratch directories on this machine, the
// nodes' faults in their software (test/fakes/fake-workload.ts).
import { afterAll, beforeAll } from "bun:test";
import "../../cli/platforms.ts";
import type { Platform } from "../../lib/core/platform.ts";
import { ssh } from "../../plugins/ssh.ts";
import { installFakeSsh, type FakeSsh } from "../fakes/fake-ssh.ts";
import { type PatternFault, patternConformance } from "./pattern-conformance.ts";

/** The table on ssh, for the scenarios given (see PatternFault). */
export function sshPatterns(opts: { faults: readonly PatternFault[] }): void {
  let fake: FakeSsh;
  beforeAll(() => {
    fake = installFakeSsh();
  });
  afterAll(() => fake.uninstall());

  patternConformance(
    "ssh",
    () => ({
      nodes: ["node1", "node2", "node3", "node4"],
      // a hung unit waits this out in every round (5 in pairwise). A healthy pair took at most 2.1 s with
      // the three hang scenarios alone at load 8, but over 5 s in the whole unit tier at load 16
      // (2026-11-28, 2 cores), so 5 s failed there: the default 10 s stays
      setup: () => ({
        platformYaml: "{ type: ssh, ssh: { hosts: [node1, node2, node3, node4], peerFailureGraceMs: 500, killGraceMs: 500 } }",
        platform: ssh as Platform<unknown>,
      }),
    }),
    opts,
  );
}
