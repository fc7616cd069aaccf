// `gpucheck health --k8s-condition` against the in-process fake API server (test/k8s-fake/): the
// Node condition GPUCheckHealthy goes False with the failure on a health run that fails for a real
// reason (needs-a-gpu.yaml wants a GPU this machine lacks), back to True on one that passes
// (no-xid.yaml: the kernel log holds no Xid), and stays True (lastTransitionTime kept) on the next
// pass. The API server allows only what the DaemonSet's ClusterRole allows: get and patch on
// nodes/status. In the integration tier because each health run is a real local suite run (Python,
// the kernel log read as root: seconds each). The flow runs from the sources, with the API given to
// it; the in-cluster token and address are read only in a pod.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { PLATFORMS } from "../../../cli/platforms.ts";
import { runHealth } from "../../../lib/pipeline/health.ts";
import type { NodeCondition } from "../../../lib/health/k8s-condition.ts";
import { healthManifests, HEALTH_DEFAULTS } from "../../../lib/health/k8s-manifest.ts";
import { FakeCluster } from "../../k8s-fake/cluster.ts";

const root = process.getuid?.() === 0;
const it = root ? test : test.skip;
const fixture = (name: string) => join(import.meta.dir, "..", "..", "fixtures", "health", name);
const TOKEN = "health-sa-token";

// the fake's RBAC is the DaemonSet's ClusterRole, read from the rendered manifest itself
const role = healthManifests({ ...HEALTH_DEFAULTS, image: "x" }).find((m) => m.kind === "ClusterRole") as { rules: Array<{ resources: string[]; verbs: string[] }> };
const allowed = new Set(role.rules.flatMap((r) => r.resources.flatMap((res) => r.verbs.map((v) => `${v} ${res}`))));

let cluster: FakeCluster;
beforeAll(async () => {
  cluster = await FakeCluster.start({ token: TOKEN, authorize: (verb, r) => allowed.has(`${verb} ${r.sub ? `${r.plural}/${r.sub}` : r.plural}`) });
});
afterAll(async () => {
  await cluster?.stop();
});

async function health(suite: string) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runHealth({
    flags: { suite: fixture(suite), k8sCondition: true, node: "gpu-1" },
    platforms: PLATFORMS,
    command: ["gpucheck", "health"],
    print: { out: (t) => out.push(t), err: (t) => err.push(t), stderr: process.stderr, color: false },
    signal: new AbortController().signal,
    interruptible: () => () => {},
    api: { url: cluster.url, token: TOKEN },
  });
  const node = cluster.store.get("nodes", "", "gpu-1") as unknown as { status: { conditions: NodeCondition[] } };
  return { code, out: out.join(""), err: err.join(""), condition: node.status.conditions.find((c) => c.type === "GPUCheckHealthy"), all: node.status.conditions };
}

describe("gpucheck health --k8s-condition on the fake API", () => {
  it("flips GPUCheckHealthy to False on a failure and back to True on a pass, through nodes/status only", async () => {
    const failed = await health("needs-a-gpu.yaml");
    expect(failed.code).toBe(3);
    expect(failed.condition).toMatchObject({ type: "GPUCheckHealthy", status: "False", reason: "GPUCheckFailed" });
    expect(failed.condition!.message).toMatch(/^1 failure: \S+: inventory: error: gpu_count unmeasured: the GPUs could not be listed \(nvidia-smi not found\) \(expected ≥ 1\)$/);
    expect(failed.err).toContain("gpucheck: Node gpu-1: condition GPUCheckHealthy=False (GPUCheckFailed)");
    // the kubelet's own condition is untouched by the merge
    expect(failed.all.find((c) => c.type === "Ready")?.status).toBe("True");

    const passed = await health("no-xid.yaml");
    expect({ code: passed.code, out: passed.out }).toEqual({ code: 0, out: "" });
    expect(passed.condition).toMatchObject({ status: "True", reason: "GPUCheckPassed", message: "gpucheck health passed" });
    expect(passed.err).toContain("gpucheck: Node gpu-1: condition GPUCheckHealthy=True (GPUCheckPassed)");
    const flippedAt = passed.condition!.lastTransitionTime;

    await Bun.sleep(1100);
    const again = await health("no-xid.yaml");
    expect(again.condition!.status).toBe("True");
    expect(again.condition!.lastTransitionTime).toBe(flippedAt);
    expect(again.condition!.lastHeartbeatTime > flippedAt).toBe(true);

    // what the health runs asked of the API server: its node's status, read and patched, nothing else
    const calls = new Set(cluster.requests.map((q) => `${q.method} ${q.path}`));
    expect([...calls].sort()).toEqual(["GET /api/v1/nodes/gpu-1/status", "PATCH /api/v1/nodes/gpu-1/status"]);
  }, 90_000);

  it("a patch the role does not allow makes a healthy run an error (exit 3), said in one line naming the call and the 403", async () => {
    const denied = await FakeCluster.start({ token: TOKEN, authorize: (verb, r) => verb === "get" && r.sub === "status" });
    try {
      const out: string[] = [];
      const err: string[] = [];
      const code = await runHealth({
        flags: { suite: fixture("no-xid.yaml"), k8sCondition: true, node: "gpu-1" },
        platforms: PLATFORMS,
        command: ["gpucheck", "health"],
        print: { out: (t) => out.push(t), err: (t) => err.push(t), stderr: process.stderr, color: false },
        signal: new AbortController().signal,
        interruptible: () => () => {},
        api: { url: denied.url, token: TOKEN },
      });
      expect(code).toBe(3);
      expect(err.join("")).toMatch(/^gpucheck: --k8s-condition: PATCH \/api\/v1\/nodes\/gpu-1\/status: HTTP 403: .*forbidden.*\n$/m);
    } finally {
      await denied.stop();
    }
  }, 60_000);
});
