// Serves a FakeCluster until killed, for trying the compiled binary by hand or from a test:
//   bun test/k8s-fake/serve.ts <dir> [nodes]   → writes <dir>/kubeconfig, prints "ready <url>"
import { FakeCluster } from "./cluster.ts";

const dir = process.argv[2];
if (!dir) {
  console.error("usage: bun test/k8s-fake/serve.ts <dir> [nodes]");
  process.exit(2);
}
const n = Number(process.argv[3] ?? 2);
const cluster = await FakeCluster.start({
  crds: true,
  nodes: Array.from({ length: n }, (_, i) => ({
    name: `gpu-${i + 1}`,
    labels: { "nvidia.com/gpu.present": "true" },
    resources: { "nvidia.com/gpu": 8 },
    taints: [{ key: "nvidia.com/gpu", effect: "NoSchedule" }],
  })),
});
cluster.kubeconfig(dir, { namespace: "gpucheck" });
console.log(`ready ${cluster.url}`);
const stop = async () => {
  await cluster.stop();
  process.exit(0);
};
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
