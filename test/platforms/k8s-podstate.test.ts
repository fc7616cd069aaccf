// Pod objects → verdicts, with plain objects for the states a fake cluster does not produce on its
// own: OOMKilled, StartError, eviction, CrashLoopBackOff, MPI workers torn down after success.
import { expect, test } from "bun:test";
import type { V1Pod } from "@kubernetes/client-node";
import { chooseNodes } from "../../plugins/k8s/nodes.ts";
import { configMapKey, k8sLiteral, namesFor, perNodeJobName, slug, unitLabel } from "../../plugins/k8s/names.ts";
import { decide, viewOf } from "../../plugins/k8s/podstate.ts";

function pod(
  name: string,
  o: {
    phase?: string;
    node?: string;
    index?: number;
    labels?: Record<string, string>;
    state?: Record<string, unknown>;
    reason?: string;
    message?: string;
    conditions?: Array<Record<string, string>>;
  } = {},
): V1Pod {
  return {
    metadata: { name, labels: o.labels ?? {}, annotations: o.index === undefined ? {} : { "batch.kubernetes.io/job-completion-index": String(o.index) } },
    spec: { nodeName: o.node, containers: [{ name: "gpucheck" }] },
    status: {
      phase: o.phase ?? "Running",
      ...(o.reason ? { reason: o.reason, message: o.message } : {}),
      conditions: o.conditions as never,
      containerStatuses: o.state ? [{ name: "gpucheck", state: o.state, ready: false, restartCount: 0, image: "i", imageID: "" }] : undefined,
    },
  } as V1Pod;
}
const v = (p: V1Pod, deleted = false) => viewOf(p, "gpucheck", deleted);

test("OOMKilled is a failed rank pod, with the reason kept for the message", () => {
  const d = decide([v(pod("p-0", { phase: "Failed", node: "n1", index: 0, state: { terminated: { exitCode: 137, reason: "OOMKilled" } } }))], 1, 0, 1000);
  expect(d).toMatchObject({ done: true, status: "failed", culprit: { name: "p-0", terminated: { exitCode: 137, reason: "OOMKilled" } } });
});

test("StartError (the command does not exist in the image) is infra, not a test failure", () => {
  const d = decide(
    [
      v(
        pod("p-0", {
          phase: "Failed",
          node: "n1",
          index: 0,
          state: { terminated: { exitCode: 128, reason: "StartError", message: 'exec: "python3": executable file not found in $PATH' } },
        }),
      ),
    ],
    1,
    0,
    1000,
  );
  expect(d).toMatchObject({
    done: true,
    status: "infra",
    message: 'pod p-0 on node n1 could not start its container: StartError: exec: "python3": executable file not found in $PATH',
  });
});

test("an evicted pod is infra with the kubelet's words", () => {
  const d = decide([v(pod("p-0", { phase: "Failed", node: "n1", index: 0, reason: "Evicted", message: "The node was low on resource: memory." }))], 1, 0, 1000);
  expect(d).toMatchObject({ status: "infra", message: "pod p-0 on node n1 was lost before it finished: Evicted: The node was low on resource: memory." });
});

test("a rank killed by its node's loss is infra even though its container exited non-zero", () => {
  const p = pod("p-1", {
    phase: "Failed",
    node: "n2",
    index: 1,
    state: { terminated: { exitCode: 137, reason: "Error" } },
    conditions: [{ type: "DisruptionTarget", status: "True", reason: "DeletionByTaintManager", message: "Taint manager: deleting due to NoExecute taint" }],
  });
  expect(decide([v(p)], 1, 0, 1000)).toMatchObject({
    status: "infra",
    message: "pod p-1 on node n2 was lost before it finished: DeletionByTaintManager: Taint manager: deleting due to NoExecute taint",
  });
});

test("CrashLoopBackOff and CreateContainerConfigError end the wait; ErrImagePull does not yet", () => {
  for (const reason of ["CrashLoopBackOff", "CreateContainerConfigError"]) {
    expect(decide([v(pod("p-0", { phase: "Pending", node: "n1", index: 0, state: { waiting: { reason, message: "m" } } }))], 1, 0, 60_000)).toMatchObject({
      done: true,
      status: "infra",
      message: `pod p-0 on node n1 cannot start: ${reason}: m`,
    });
  }
  const pulling = decide([v(pod("p-0", { phase: "Pending", node: "n1", index: 0, state: { waiting: { reason: "ErrImagePull", message: "not found" } } }))], 1, 0, 60_000);
  expect(pulling).toEqual({ done: false, pending: ["pod p-0 on node n1 is waiting: ErrImagePull: not found"] });
});

test("MPIJob: workers removed by the operator after the launcher succeeded do not spoil the verdict", () => {
  const worker = pod("j-worker-0", { phase: "Running", node: "n1", labels: { "training.kubeflow.org/operator-name": "mpi-operator", "training.kubeflow.org/job-role": "worker" } });
  const launcher = pod("j-launcher-x", {
    phase: "Succeeded",
    node: "n3",
    labels: { "training.kubeflow.org/operator-name": "mpi-operator", "training.kubeflow.org/job-role": "launcher" },
    state: { terminated: { exitCode: 0, reason: "Completed" } },
  });
  expect(v(worker).role).toBe("helper");
  expect(decide([v(worker, true), v(launcher)], 1, 0, 1000)).toEqual({ done: true, status: "completed" });
  // but a worker lost while the launcher still runs is infra
  const running = pod("j-launcher-x", {
    phase: "Running",
    labels: { "training.kubeflow.org/operator-name": "mpi-operator", "training.kubeflow.org/job-role": "launcher" },
    state: { running: {} },
  });
  expect(decide([v(worker, true), v(running)], 1, 0, 1000)).toMatchObject({
    status: "infra",
    message: "pod j-worker-0 on node n1 was lost before it finished: deleted by someone other than gpucheck",
  });
});

test("PyTorchJob pods: master is node rank 0, worker i is i+1", () => {
  expect(v(pod("j-master-0", { labels: { "training.kubeflow.org/replica-type": "master", "training.kubeflow.org/replica-index": "0" } })).nodeRank).toBe(0);
  expect(v(pod("j-worker-2", { labels: { "training.kubeflow.org/replica-type": "worker", "training.kubeflow.org/replica-index": "2" } })).nodeRank).toBe(3);
});

test("nodes: cordoned and NotReady are skipped with the reason; the rest sorted", () => {
  const node = (name: string, ready: string, unschedulable = false, message?: string) => ({
    metadata: { name },
    spec: { unschedulable },
    status: { conditions: [{ type: "Ready", status: ready, reason: "KubeletNotReady", message }] },
  });
  expect(chooseNodes([node("b", "True"), node("a", "True"), node("c", "True", true), node("d", "False", false, "PLEG is not healthy"), node("e", "Unknown")] as never)).toEqual({
    usable: ["a", "b"],
    skipped: [
      { node: "c", reason: "node is cordoned (spec.unschedulable)" },
      { node: "d", reason: "node is not Ready: PLEG is not healthy" },
      { node: "e", reason: "node is not Ready (KubeletNotReady)" },
    ],
  });
});

test("names stay DNS labels within 63 characters, whatever the test or node is called", () => {
  const n = namesFor("NCCL All-Reduce: 8 GiB (NVLink + IB) — with a very long descriptive name", "a1b2c3");
  expect(n.base).toBe("gc-nccl-all-reduce-8-gib-nvlink-i-a1b2c3");
  expect(`${n.base}-1023`.length).toBeLessThanOrEqual(63);
  const job = perNodeJobName(n, "ip-10-0-12-34.eu-north-1.compute.internal");
  expect(job).toMatch(/^gc-nccl-all-reduce-8-gib-nvlink-i-a1b2c3-ip-10-0-12-3-[0-9a-f]{5}$/);
  expect(job.length).toBeLessThanOrEqual(63);
  expect(perNodeJobName(n, "ip-10-0-12-34.a")).not.toBe(perNodeJobName(n, "ip-10-0-12-34.b"));
  expect(unitLabel("gpu-1")).toBe("gpu-1");
  expect(unitLabel("x".repeat(70)).length).toBeLessThanOrEqual(63);
  expect(slug("---", 10)).toBe("x");
  expect(configMapKey("gpucheck_workload/__main__.py")).toBe("gpucheck_workload..__main__.py");
  expect(k8sLiteral("a$(B)$$c")).toBe("a$$(B)$$$$c");
});
