// The isolating patterns' conformance table (pattern-conformance.ts) on the k8s platform against the
// in-process fake API server: each round an Indexed Job per group, pinned to its nodes, the nodes'
// faults in their software (test/fakes/fake-workload.ts).
import { afterAll, beforeAll } from "bun:test";
import "../../cli/platforms.ts";
import type { Platform } from "../../lib/core/platform.ts";
import { k8s } from "../../plugins/k8s.ts";
import { runTest } from "../../plugins/k8s/lifecycle.ts";
import { FakeCluster } from "../k8s-fake/cluster.ts";
import { tempDir } from "../tmp.ts";
import { type PatternFault, patternConformance } from "./pattern-conformance.ts";

const NODES = ["node-a", "node-b", "node-c", "node-d"];
/** The table on k8s, for the scenarios given (see PatternFault). */
export function k8sPatterns(opts: { faults: readonly PatternFault[] }): void {
  let cluster: FakeCluster;
  beforeAll(async () => {
    cluster = await FakeCluster.start({ nodes: NODES.map((name) => ({ name })) });
  });
  afterAll(async () => {
    await cluster.stop();
  });

  patternConformance(
    "k8s",
    () => ({
      nodes: NODES,
      // a hung unit waits this out in every round (5 in pairwise); a healthy pair's Job (scheduled, its pods
      // started and followed) took at most 1.5 s with the three hang scenarios
      // alone at load 6-9, and 6 s held in the whole unit tier at load 16 (2026-11-28, 2 cores); over 10 s
      // at a load of 150, and once over 10 s in CI's unit tier beside pytest and the integration tier's
      // build (2026-11-29)
      hangTimeout: "15s",
      setup: () => {
        const kubeconfig = cluster.kubeconfig(tempDir("gpucheck-pattern-kc-"), { namespace: "gpu" });
        return {
          platformYaml: `{ type: k8s, k8s: { image: python:3-local, namespace: gpu, nodes: [${NODES.join(", ")}] } }`,
          platform: { ...(k8s as Platform<unknown>), run: (ctx) => runTest(ctx as Parameters<typeof runTest>[0], { source: { env: { KUBECONFIG: kubeconfig } } }) },
        };
      },
    }),
    opts,
  );
}
