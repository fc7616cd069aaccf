// The platform conformance suite (success, failure, timeout, Ctrl-C, hostile values) run through
// the k8s platform's own entry point, against the in-process fake API server.
import { afterAll, beforeAll } from "bun:test";
import { k8s } from "../../../plugins/k8s.ts";
import type { Platform } from "../../../lib/core/platform.ts";
import { FakeCluster } from "../../k8s-fake/cluster.ts";
import { PYTHON } from "../../k8s-fake/harness.ts";
import { conformance } from "../../platforms/conformance.ts";
import { localLeftovers } from "../../platforms/leftovers.ts";
import { tempDir } from "../../tmp.ts";

let cluster: FakeCluster;
const saved = process.env.KUBECONFIG;
beforeAll(async () => {
  cluster = await FakeCluster.start({ nodes: ["n1", "n2"].map((name) => ({ name })) });
  // platform.run() finds its credentials as in production: through $KUBECONFIG
  process.env.KUBECONFIG = cluster.kubeconfig(tempDir("kc-conf-"), { namespace: "conformance" });
});
afterAll(async () => {
  if (saved === undefined) delete process.env.KUBECONFIG;
  else process.env.KUBECONFIG = saved;
  await cluster.stop();
});

conformance(k8s as Platform<unknown>, () => ({
  python: PYTHON,
  settings: k8s.settings.parse({ image: "python:3-local" }),
  nodes: 2,
  ranksPerNode: 2,
  slackS: 3,
  leftovers: async (marker) => [...(await localLeftovers(marker)), ...cluster.objects("app.kubernetes.io/managed-by=gpucheck")],
}));
