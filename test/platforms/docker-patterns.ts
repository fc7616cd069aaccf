// The isolating patterns' conformance table (pattern-conformance.ts) on the docker platform: one
// fake engine per node (test/fakes/fake-docker.ts), each on a loopback address of its own so the
// platform takes them for four hosts, the nodes' faults in their software (test/fakes/fake-workload.ts).
// Plain HTTP to them, said by name (insecureTcp): fakes on loopback, no TLS to test here (docker-tls.test.ts).
import { afterAll, beforeAll } from "bun:test";
import "../../cli/platforms.ts";
import type { Platform } from "../../lib/core/platform.ts";
import { docker } from "../../plugins/docker.ts";
import { FakeDockerEngine } from "../fakes/fake-docker.ts";
import { type PatternFault, patternConformance } from "./pattern-conformance.ts";

/** The table on docker, for the scenarios given (see PatternFault). */
export function dockerPatterns(opts: { faults: readonly PatternFault[] }): void {
  let engines: FakeDockerEngine[] = [];
  beforeAll(async () => {
    engines = await Promise.all([2, 3, 4, 5].map((n) => FakeDockerEngine.start({ tcp: `127.0.0.${n}` })));
  });
  afterAll(async () => {
    await Promise.all(engines.map((e) => e.stop()));
  });

  patternConformance(
    "docker",
    () => ({
      nodes: ["127.0.0.2", "127.0.0.3", "127.0.0.4", "127.0.0.5"],
      // a hung unit waits this out in every round (5 in pairwise). A healthy pair took at most 1.7 s with
      // the three hang scenarios alone at load 8, but over 5 s in the whole unit tier at load 16
      // (2026-11-28, 2 cores), so 5 s failed there: the default 10 s stays
      setup: () => ({
        platformYaml: `{ type: docker, docker: { hosts: [${engines.map((e) => e.url).join(", ")}], insecureTcp: true, network: none, ulimits: false, pull: never, stopGraceS: 1 } }`,
        platform: docker as Platform<unknown>,
      }),
    }),
    opts,
  );
}
