// One test on a cluster: connect, check what the mode needs, create the objects, follow each unit
// (a per-node test's nodes in turns, plugins/k8s/turns.ts), and delete everything labelled with the
// run whatever happened (unless --keep).
import { join } from "node:path";
import { PlatformError } from "../../lib/core/errors.ts";
import type { UnitRun } from "../../lib/core/types.ts";
import { ended, unitResult } from "../_shared/unit-result.ts";
import { manifestInput, namespaceOf } from "./input.ts";
import { bindSlots, complete, slot } from "../../lib/core/slots.ts";
import type { RunContext } from "../../lib/core/platform.ts";
import { cleanupCommand, deleteRun, resourceName, type Kind } from "./cleanup.ts";
import { connect, type Kube } from "./client.ts";
import { followUnit, type UnitSpec } from "./follow.ts";
import { createObject, followInTurns } from "./turns.ts";
import { takesTurns } from "../_shared/window.ts";
import { MPIJOB, PYTORCHJOB } from "./kubeflow.ts";
import { loadKubeConfig, type KubeConfigSource } from "./kubeconfig.ts";
import type { Manifest } from "./input.ts";
import { buildManifests, groupsOf } from "./manifests.ts";
import { ANNOTATION_NODE, LABEL_RUN, LABEL_UNIT, newRunId, unitLabel } from "./names.ts";
import { listNodes, onlyNamed, servesResource, type NodeChoice } from "./nodes.ts";
import type { K8sSettings } from "./settings.ts";

export interface RunOptions {
  /** tests: a fixed run id (to plant a conflicting object), another credential source */
  runId?: string;
  source?: Omit<KubeConfigSource, "context">;
}

/** etcd refuses objects over 1.5 MiB; ConfigMaps are documented to 1 MiB */
const CONFIGMAP_MAX = 1024 * 1024;

async function requireCrd(kube: Kube, mode: K8sSettings["mode"]): Promise<void> {
  const crd = mode === "pytorchjob" ? PYTORCHJOB : mode === "mpijob" ? MPIJOB : undefined;
  if (!crd) return;
  if (!(await servesResource(kube, crd.group, crd.version, crd.plural))) {
    const operator = mode === "pytorchjob" ? "the Kubeflow training operator (≥ 1.8)" : "the Kubeflow MPI operator (v2beta1)";
    throw new PlatformError(
      `k8s: mode "${mode}" needs ${operator}, but ${kube.server} does not serve ${crd.plural}.${crd.group}/${crd.version}: install it, or use mode: indexed-job (plain batch/v1, no operator)`,
    );
  }
}

function unitsFor(ctx: RunContext<K8sSettings>, manifests: Manifest[], runId: string): UnitSpec[] {
  const t = ctx.test;
  const base = { ranksPerNode: t.ranksPerNode };
  if (t.perNode) {
    return manifests
      .filter((m) => m.kind === "Job")
      .map((m) => {
        const node = m.metadata.annotations![ANNOTATION_NODE]!;
        return {
          ...base,
          unit: node,
          owner: m.metadata.name,
          labelSelector: `${LABEL_RUN}=${runId},${LABEL_UNIT}=${unitLabel(node)}`,
          expected: 1,
          worldSize: t.ranksPerNode,
          container: "gpucheck",
          logDir: join(ctx.logDir, node),
        };
      });
  }
  const groups = groupsOf(t);
  if (groups) {
    const jobs = manifests.filter((m) => m.kind === "Job");
    return groups.map((g, k) => ({
      ...base,
      unit: g.name,
      owner: jobs[k]!.metadata.name,
      labelSelector: `${LABEL_RUN}=${runId},${LABEL_UNIT}=${unitLabel(g.name)}`,
      expected: g.nodes.length,
      worldSize: g.nodes.length * t.ranksPerNode,
      container: "gpucheck",
      logDir: join(ctx.logDir, g.name),
      hosts: g.nodes,
    }));
  }
  const owner = manifests.at(-1)!.metadata.name;
  const common = { ...base, unit: "all", owner, labelSelector: `${LABEL_RUN}=${runId}`, worldSize: t.worldSize, logDir: join(ctx.logDir, "all") };
  switch (ctx.settings.mode) {
    case "indexed-job":
      return [{ ...common, expected: t.nodes, container: "gpucheck" }];
    case "pytorchjob":
      return [{ ...common, expected: t.nodes, container: "pytorch" }];
    case "mpijob":
      return [{ ...common, expected: 1, container: "launcher", mpiJob: owner }];
  }
}

export async function runTest(ctx: RunContext<K8sSettings>, opts: RunOptions = {}): Promise<UnitRun[]> {
  const k = await import("@kubernetes/client-node");
  const loaded = loadKubeConfig(k, { ...opts.source, context: ctx.cli.context ?? ctx.settings.context });
  const kube = connect(k, loaded, ctx.settings.namespace ?? loaded.namespace ?? "default");
  const runId = opts.runId ?? newRunId();
  if (!ctx.test.perNode) await requireCrd(kube, ctx.settings.mode);
  const nodes: NodeChoice | undefined = ctx.test.perNode ? onlyNamed(await listNodes(kube, ctx.settings.nodeSelector), ctx.settings.nodes) : undefined;
  if (nodes) ctx.perNodeUnits?.(nodes.usable.length);

  const files = new Map(ctx.workload);
  const size = [...files.values()].reduce((n, text) => n + Buffer.byteLength(text), 0);
  if (size > CONFIGMAP_MAX) throw new PlatformError(`k8s: the workload is ${size} bytes, over a ConfigMap's 1 MiB`);
  // what plan rendered (with the workload's real content), run id and namespace bound into its slots
  const rendered = buildManifests(manifestInput(ctx, slot("runId"), namespaceOf(ctx.settings), files), nodes?.usable);
  const manifests = complete(bindSlots(rendered, { runId, namespace: kube.namespace }), ["runId", "namespace"], "the k8s manifests");
  const kinds: Kind[] = manifests.map((m) => ({ apiVersion: m.apiVersion, kind: m.kind, resource: resourceName(m.apiVersion, m.kind) }));
  const startedAt = new Date().toISOString();
  const skipped: UnitRun[] = (nodes?.skipped ?? []).map((s) =>
    unitResult({ unit: s.node, hosts: [s.node], startedAt, endedAt: startedAt, decided: { status: "skipped", message: s.reason } }),
  );

  try {
    const units = unitsFor(ctx, manifests, runId);
    // per-node units take turns: each one's Job waits for its turn, the workload's ConfigMap is shared
    const turns = ctx.test.perNode && takesTurns(units.map((u) => [u.unit]));
    const owners = new Set(turns ? units.map((u) => u.owner) : []);
    const jobs = new Map(manifests.filter((m) => owners.has(m.metadata.name)).map((m) => [m.metadata.name, m]));
    for (const m of manifests) {
      if (ctx.signal.aborted) break;
      if (!jobs.has(m.metadata.name)) await createObject(kube, m);
    }
    ctx.note(`k8s: run ${runId} in namespace ${kube.namespace} (context ${kube.context}): kubectl -n ${kube.namespace} get pods -l ${LABEL_RUN}=${runId}`);
    const fc = { signal: ctx.signal, timeoutMs: ctx.test.timeoutMs, queueTimeoutMs: ctx.suite.queueTimeoutMs, onLine: ctx.onLine, note: ctx.note };
    const runs = turns
      ? await followInTurns(kube, units, { maxParallel: ctx.settings.maxParallel, jobs, keep: Boolean(ctx.cli.keep), ctx }, fc)
      : await Promise.all(units.map(async (u) => ended(ctx, await followUnit(kube, u, fc))));
    return [...runs, ...skipped];
  } finally {
    if (ctx.cli.keep) {
      ctx.note(`k8s: --keep: left run ${runId} in place; delete it with: ${cleanupCommand(kube, runId, kinds)}`);
    } else {
      const r = await deleteRun(kube, runId, kinds);
      if (r.errors.length || r.lingering.length) {
        ctx.note(
          `k8s: cleanup of run ${runId} incomplete (${[...r.errors, ...r.lingering.map((p) => `pod ${p} still terminating`)].join("; ")}): ${cleanupCommand(kube, runId, kinds)}`,
        );
      }
    }
  }
}
