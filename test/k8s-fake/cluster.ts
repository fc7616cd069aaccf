// A whole fake cluster in one process: API server + Job/PyTorchJob controllers + scheduler + kubelet
// + garbage collector, and helpers for tests (kubeconfig, losing a node, listing what is left).
import type { Server, ServerResponse } from "node:http";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { reconcileJob, reconcilePyTorchJob, ownedBy, type JobObj } from "./controllers.ts";
import { killGroup, LogBuffer, materializeVolumes, podDir, removeDir, startContainer, freePort, type ContainerRun, type PodObj } from "./kubelet.ts";
import { serveLog } from "./log-endpoint.ts";
import { RESOURCES, type Resource } from "./resources.ts";
import { schedule, type NodeObj, type SchedPod } from "./scheduler.ts";
import { startApi, type RecordedRequest } from "./server.ts";
import { parseSelector, Store, type Obj } from "./store.ts";

export interface FakeNode {
  name: string;
  labels?: Record<string, string>;
  /** allocatable extended resources, e.g. {"nvidia.com/gpu": 8} */
  resources?: Record<string, number>;
  taints?: Array<{ key: string; value?: string; effect: string }>;
  ready?: boolean;
  unschedulable?: boolean;
}

export interface FakeOptions {
  nodes?: FakeNode[];
  crds?: boolean;
  token?: string;
  tls?: { key: string; cert: string; ca: string; clientCerts?: boolean };
  user?: string;
  /** RBAC: "verb resource" pairs that are forbidden, e.g. "create jobs", "get pods/log", "list nodes" */
  deny?: string[];
  /** RBAC as a whole: false → 403 (applied after `deny`) */
  authorize?(verb: string, r: { group: string; plural: string; sub?: string }, ns: string | undefined): boolean;
  /** image → the kubelet's pull error for it */
  badImages?: Record<string, "ErrImagePull" | "ImagePullBackOff" | "InvalidImageName">;
  /** admission for pods made by controllers: a message refuses the pod (as PodSecurity does) */
  admitPod?(pod: PodObj): string | undefined;
  /** end each follow=true log response after this many lines, once per container (reconnect tests) */
  breakLogsAfter?: number;
  /** connection resets: "before" the request is handled, or (a create) "after" it landed, its answer lost */
  dropConnection?(q: RecordedRequest): "before" | "after" | undefined;
}

interface Running {
  dir: string;
  logs: Map<string, LogBuffer>;
  runs: ContainerRun[];
  killed: boolean;
}

const GPU_NODE: FakeNode = {
  name: "gpu-1",
  labels: { "nvidia.com/gpu.present": "true" },
  resources: { "nvidia.com/gpu": 8 },
  taints: [{ key: "nvidia.com/gpu", effect: "NoSchedule" }],
};

export class FakeCluster {
  readonly store = new Store();
  url = "";
  requests: RecordedRequest[] = [];
  private server?: Server;
  private watches = new Set<ServerResponse>();
  private running = new Map<string, Running>();
  private ports = new Map<string, Promise<string>>();
  private lost = new Map<string, Set<string>>();
  private pending?: ReturnType<typeof setTimeout>;
  private ticker?: ReturnType<typeof setInterval>;
  private brokenOnce = new Set<string>();

  private constructor(readonly opts: FakeOptions) {}

  static async start(opts: FakeOptions = {}): Promise<FakeCluster> {
    const c = new FakeCluster(opts);
    for (const n of opts.nodes ?? [GPU_NODE]) c.addNode(n);
    const deny = new Set(opts.deny ?? []);
    const api = await startApi({
      store: c.store,
      crds: Boolean(opts.crds),
      token: opts.token,
      tls: opts.tls,
      user: opts.user ?? "system:serviceaccount:gpu:gpucheck",
      authorize: (verb, r, ns) => !deny.has(`${verb} ${r.sub ? `${r.plural}/${r.sub}` : r.plural}`) && (opts.authorize?.(verb, r, ns) ?? true),
      logs: (ns, pod, container, res, q) => {
        const p = c.store.get("pods", ns, pod) as PodObj | undefined;
        const breakAfter = (name: string) => {
          const k = `${ns}/${pod}/${name}`;
          if (!opts.breakLogsAfter || c.brokenOnce.has(k)) return Infinity;
          c.brokenOnce.add(k);
          return opts.breakLogsAfter;
        };
        serveLog(res, q, pod, p, container, (name) => c.running.get(`${ns}/${pod}`)?.logs.get(name), breakAfter);
      },
      remove: (r, ns, name, policy) => c.remove(r, ns, name, policy),
      drop: opts.dropConnection,
    });
    Object.assign(c, { server: api.server, url: api.url, requests: api.requests, watches: api.watches });
    c.store.subscribe(() => c.kick());
    // time-based transitions (activeDeadlineSeconds, image pull back-off) need a clock, not only events
    c.ticker = setInterval(() => c.kick(), 200);
    return c;
  }

  addNode(n: FakeNode): void {
    const alloc = Object.fromEntries(Object.entries(n.resources ?? {}).map(([k, v]) => [k, String(v)]));
    this.store.create("nodes", "", {
      apiVersion: "v1",
      kind: "Node",
      metadata: { name: n.name, labels: { "kubernetes.io/hostname": n.name, ...(n.labels ?? {}) } },
      spec: { ...(n.unschedulable ? { unschedulable: true } : {}), ...(n.taints ? { taints: n.taints } : {}) },
      status: {
        capacity: alloc,
        allocatable: alloc,
        conditions: [
          {
            type: "Ready",
            status: n.ready === false ? "False" : "True",
            reason: n.ready === false ? "KubeletNotReady" : "KubeletReady",
            message: n.ready === false ? "container runtime network not ready" : "kubelet is posting ready status",
          },
        ],
      },
    });
  }

  /** writes a kubeconfig for this cluster; returns its path */
  kubeconfig(dir: string, o: { context?: string; namespace?: string; user?: Record<string, unknown> } = {}): string {
    const ctx = o.context ?? "fake";
    const cluster = this.opts.tls ? { server: this.url, "certificate-authority-data": Buffer.from(this.opts.tls.ca).toString("base64") } : { server: this.url };
    const user = o.user ?? (this.opts.token ? { token: this.opts.token } : {});
    const cfg = {
      apiVersion: "v1",
      kind: "Config",
      clusters: [{ name: "fake", cluster }],
      users: [{ name: "fake-user", user }],
      contexts: [{ name: ctx, context: { cluster: "fake", user: "fake-user", ...(o.namespace ? { namespace: o.namespace } : {}) } }],
      "current-context": ctx,
    };
    const path = join(dir, "kubeconfig");
    writeFileSync(path, JSON.stringify(cfg, null, 2));
    return path;
  }

  /** every object (any resource) whose labels match */
  objects(labelSelector: string): string[] {
    const m = parseSelector(labelSelector);
    return RESOURCES.flatMap((r) => this.store.list(r.plural, undefined, (o) => m(o.metadata.labels)).map((o) => `${r.plural}/${o.metadata.name}`));
  }

  /** ends every open watch, as an API server restart does; clients must resume from their version */
  dropWatches(): void {
    for (const w of this.watches) w.end();
  }

  /** pids of container processes still alive */
  livePids(): number[] {
    return [...this.running.values()].flatMap((r) =>
      r.runs
        .map((x) => x.proc)
        .filter((p) => p.exitCode === null && p.signalCode === null)
        .map((p) => p.pid!),
    );
  }

  /** the node vanishes: its pods are killed, marked NodeLost with DisruptionTarget, then garbage-collected */
  loseNode(name: string): void {
    this.store.remove("nodes", "", name);
    for (const p of this.store.list("pods", undefined, (o) => (o as PodObj).spec.nodeName === name) as PodObj[]) {
      const ns = p.metadata.namespace!;
      const r = this.running.get(`${ns}/${p.metadata.name}`);
      if (r) {
        r.killed = true;
        for (const x of r.runs) killGroup(x.proc, "SIGKILL");
      }
      this.store.update("pods", ns, p.metadata.name, (o) => {
        const st = (o.status ?? {}) as Record<string, unknown>;
        o.status = {
          ...st,
          phase: "Failed",
          reason: "NodeLost",
          message: `Node ${name} which was running pod ${p.metadata.name} is unresponsive`,
          conditions: [...((st.conditions as unknown[]) ?? []), { type: "DisruptionTarget", status: "True", reason: "DeletionByPodGC", message: "PodGC: node no longer exists" }],
        };
      });
      setTimeout(() => this.forget(ns, p.metadata.name, true), 100);
    }
  }

  async stop(): Promise<void> {
    clearInterval(this.ticker);
    clearTimeout(this.pending);
    for (const r of this.running.values()) for (const x of r.runs) killGroup(x.proc, "SIGKILL");
    await Promise.all([...this.running.values()].flatMap((r) => r.runs.map((x) => x.exited)));
    for (const r of this.running.values()) removeDir(r.dir);
    this.server?.closeAllConnections?.();
    await new Promise<void>((r) => (this.server ? this.server.close(() => r()) : r()));
  }

  private kick(): void {
    this.pending ??= setTimeout(() => {
      this.pending = undefined;
      this.reconcile();
    }, 5);
  }

  private reconcile(): void {
    for (const j of this.store.list("jobs", undefined) as JobObj[]) {
      reconcileJob(
        this.store,
        j,
        this.lost.get(j.metadata.uid!) ?? new Set(),
        (ns, name) => this.deletePod(ns, name),
        (job, pod) => this.admit(job, pod),
      );
    }
    if (this.opts.crds) for (const j of this.store.list("pytorchjobs", undefined)) reconcilePyTorchJob(this.store, j as never);
    const nodes = this.store.list("nodes", "") as NodeObj[];
    const pods = this.store.list("pods", undefined) as Array<PodObj & SchedPod>;
    for (const p of pods) {
      if (p.metadata.deletionTimestamp) continue;
      const ns = p.metadata.namespace!;
      if (!p.spec.nodeName) {
        const s = schedule(p, nodes, pods);
        this.store.update("pods", ns, p.metadata.name, (o) => {
          const spec = o.spec as PodObj["spec"];
          if ("node" in s) spec.nodeName = s.node;
          o.status = {
            ...(o.status as object),
            phase: "Pending",
            conditions: [{ type: "PodScheduled", status: "node" in s ? "True" : "False", ...("message" in s ? { reason: "Unschedulable", message: s.message } : {}) }],
          };
        });
        if ("node" in s) p.spec.nodeName = s.node;
      } else if (!this.running.has(`${ns}/${p.metadata.name}`) && ((p.status as { phase?: string } | undefined)?.phase ?? "Pending") === "Pending") {
        this.startPod(p);
      }
    }
  }

  private admit(job: JobObj, pod: PodObj): boolean {
    const ns = job.metadata.namespace!;
    const refusal = this.opts.admitPod?.(pod);
    if (!refusal) return Boolean(this.store.create("pods", ns, pod));
    const name = `${job.metadata.name}.failedcreate`;
    const at = new Date().toISOString().replace(/\.\d+Z$/, "Z");
    const message = `Error creating: pods "${pod.metadata.name}" is forbidden: ${refusal}`;
    if (!this.store.update("events", ns, name, (e) => Object.assign(e, { message, lastTimestamp: at, count: ((e.count as number) ?? 1) + 1 }))) {
      this.store.create("events", ns, {
        apiVersion: "v1",
        kind: "Event",
        metadata: { name },
        involvedObject: { apiVersion: "batch/v1", kind: "Job", name: job.metadata.name, namespace: ns, uid: job.metadata.uid },
        reason: "FailedCreate",
        type: "Warning",
        message,
        count: 1,
        firstTimestamp: at,
        lastTimestamp: at,
        source: { component: "job-controller" },
      });
    }
    return false;
  }

  private setStatus(ns: string, name: string, f: (st: Record<string, unknown>) => Record<string, unknown>): void {
    this.store.update("pods", ns, name, (o) => (o.status = f((o.status ?? {}) as Record<string, unknown>)));
  }

  private startPod(pod: PodObj): void {
    const ns = pod.metadata.namespace!;
    const name = pod.metadata.name;
    const c0 = pod.spec.containers[0]!;
    const bad = this.opts.badImages?.[c0.image];
    const conds = (ready: boolean) => [
      { type: "PodScheduled", status: "True" },
      { type: "Initialized", status: "True" },
      { type: "ContainersReady", status: ready ? "True" : "False" },
      { type: "Ready", status: ready ? "True" : "False" },
    ];
    if (bad) {
      const first = bad === "ImagePullBackOff" ? "ErrImagePull" : bad;
      const waiting = (reason: string, message: string) => ({
        phase: "Pending",
        conditions: conds(false),
        containerStatuses: pod.spec.containers.map((c) => ({ name: c.name, image: c.image, ready: false, restartCount: 0, state: { waiting: { reason, message } } })),
      });
      this.setStatus(ns, name, () => waiting(first, `rpc error: code = NotFound desc = failed to pull and unpack image "${c0.image}": not found`));
      if (bad === "ImagePullBackOff") setTimeout(() => this.setStatus(ns, name, () => waiting("ImagePullBackOff", `Back-off pulling image "${c0.image}"`)), 300);
      this.running.set(`${ns}/${name}`, { dir: "", logs: new Map(), runs: [], killed: false });
      return;
    }
    const run: Running = { dir: podDir(), logs: new Map(), runs: [], killed: false };
    this.running.set(`${ns}/${name}`, run);
    void (async () => {
      const startedAt = new Date().toISOString().replace(/\.\d+Z$/, "Z");
      let volumes: Map<string, string>;
      try {
        volumes = materializeVolumes(pod, run.dir, (cm) => this.store.get("configmaps", ns, cm)?.data as Record<string, string> | undefined);
      } catch (e) {
        this.setStatus(ns, name, () => ({
          phase: "Pending",
          conditions: conds(false),
          containerStatuses: [{ name: c0.name, ready: false, restartCount: 0, state: { waiting: { reason: "CreateContainerConfigError", message: (e as Error).message } } }],
        }));
        return;
      }
      const owner = pod.metadata.ownerReferences?.[0]?.uid ?? name;
      const spec = (c: PodObj["spec"]["containers"][0]) => {
        const log = new LogBuffer();
        run.logs.set(c.name, log);
        return {
          pod,
          container: c,
          dir: run.dir,
          log,
          resolves: (host: string) => this.resolves(ns, host),
          // the promise is cached, not the number: the pods of one Job start concurrently
          masterPort: (port: string) => {
            const k = `${owner}/${port}`;
            if (!this.ports.has(k)) this.ports.set(k, freePort().then(String));
            return this.ports.get(k)!;
          },
        };
      };
      const results: Array<{ name: string; code: number; at: string }> = [];
      this.setStatus(ns, name, (st) => ({
        ...st,
        phase: "Running",
        podIP: "127.0.0.1",
        hostIP: "127.0.0.1",
        startTime: startedAt,
        conditions: conds(true),
        containerStatuses: pod.spec.containers.map((c) => ({ name: c.name, image: c.image, ready: true, started: true, restartCount: 0, state: { running: { startedAt } } })),
      }));
      await Promise.all(
        pod.spec.containers.map(async (c) => {
          const s = spec(c);
          try {
            const r = await startContainer(s, volumes);
            run.runs.push(r);
            results.push({ name: c.name, code: await r.exited, at: new Date().toISOString().replace(/\.\d+Z$/, "Z") });
          } catch (e) {
            s.log.push(String((e as Error).message));
            results.push({ name: c.name, code: 128, at: startedAt });
          }
          s.log.end();
        }),
      );
      if (run.killed) return;
      const failed = results.some((r) => r.code !== 0);
      this.setStatus(ns, name, (st) => ({
        ...st,
        phase: failed ? "Failed" : "Succeeded",
        conditions: conds(false),
        containerStatuses: results.map((r) => ({
          name: r.name,
          ready: false,
          started: false,
          restartCount: 0,
          state: { terminated: { exitCode: r.code, reason: r.code === 0 ? "Completed" : "Error", startedAt, finishedAt: r.at } },
        })),
      }));
      if (this.store.get("pods", ns, name)?.metadata.deletionTimestamp) this.forget(ns, name, true);
    })();
  }

  /** cluster DNS: pod hostnames (with subdomain), Services, and their .svc[.cluster.local] names */
  private resolves(ns: string, host: string): boolean {
    const h = host.replace(/\.cluster\.local$/, "").replace(new RegExp(`\\.${ns}\\.svc$`), "");
    if (this.store.get("services", ns, h)) return true;
    return this.store.list("pods", ns).some((p) => {
      const s = (p as PodObj).spec;
      return s.hostname !== undefined && (h === `${s.hostname}.${s.subdomain}` || h === s.hostname);
    });
  }

  /** graceful pod deletion: SIGTERM, SIGKILL after the grace period, gone once the processes are */
  private deletePod(ns: string, name: string): void {
    const p = this.store.update("pods", ns, name, (o) => (o.metadata.deletionTimestamp ??= new Date().toISOString()));
    if (!p) return;
    const r = this.running.get(`${ns}/${name}`);
    const live = r?.runs.filter((x) => x.proc.exitCode === null && x.proc.signalCode === null) ?? [];
    if (!live.length) return this.forget(ns, name, true);
    for (const x of live) killGroup(x.proc, "SIGTERM");
    const grace = setTimeout(() => live.forEach((x) => killGroup(x.proc, "SIGKILL")), 2000);
    void Promise.all(live.map((x) => x.exited)).then(() => {
      clearTimeout(grace);
      setTimeout(() => this.forget(ns, name, true), 50);
    });
  }

  private forget(ns: string, name: string, remove: boolean): void {
    const pod = remove ? this.store.remove("pods", ns, name) : undefined;
    const owner = pod?.metadata.ownerReferences?.[0]?.uid;
    const phase = (pod?.status as { phase?: string } | undefined)?.phase;
    // the Job controller's tracking finalizers count a vanished pod that had not succeeded as failed
    if (owner && phase !== "Succeeded") {
      this.lost.set(owner, (this.lost.get(owner) ?? new Set()).add(name));
    }
    const r = this.running.get(`${ns}/${name}`);
    if (r?.dir) removeDir(r.dir);
  }

  /** DELETE with the garbage collector: Background/Foreground take dependents along, Orphan leaves them */
  private remove(r: Resource, ns: string, name: string, policy: string | undefined): Obj | undefined {
    if (r.plural === "pods") {
      const p = this.store.get("pods", ns, name);
      if (p) this.deletePod(ns, name);
      return p;
    }
    const gone = this.store.remove(r.plural, ns, name);
    if (!gone) return undefined;
    // batch/v1 Jobs default to orphaning their pods when the client names no policy
    const effective = policy ?? (r.plural === "jobs" ? "Orphan" : "Background");
    for (const dr of RESOURCES) {
      for (const d of this.store.list(dr.plural, dr.namespaced ? ns : "", (o) => ownedBy(o, gone.metadata.uid!))) {
        if (effective === "Orphan") {
          this.store.update(dr.plural, ns, d.metadata.name, (o) => (o.metadata.ownerReferences = o.metadata.ownerReferences?.filter((x) => x.uid !== gone.metadata.uid)));
        } else this.remove(dr, ns, d.metadata.name, "Background");
      }
    }
    return gone;
  }
}
